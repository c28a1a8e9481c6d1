// The run records' validators compiled ahead of a code cache: a bundle's `warmCodeCache`
// (lib/cli/codeCache.ts says why). Each is one generated function of 10-85 KB.
import { validateLeaseSchema } from './leaseValidator.generated.js';
import { validateWorkflowSchema } from './workflowValidator.generated.js';

/** Runs the run records' validators once on an empty object (their answers are not used). */
export function warmRunValidators(): void {
  validateWorkflowSchema({});
  validateLeaseSchema({});
}
