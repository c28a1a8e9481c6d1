import assert from 'node:assert/strict';
import { parseArgs } from 'node:util';
import { OptionRefusal, readLongOptions, type LongOption } from '../../lib/cli/longOptions.js';

const OPTIONS: Record<string, LongOption> = {
  lease: { type: 'string' },
  note: { type: 'string', multiple: true },
  'reclaim-stale': { type: 'boolean' },
  json: { type: 'boolean' },
};

/** node:util parseArgs, strict with positionals: its values and positionals, or its refusal. */
function nodeReads(args: string[]): unknown {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    return { values: { ...values }, positionals };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // The refusal's first sentence: the option and what is wrong with it.
    return { code: e.code, first: e.message.split(/\.(\s|$)/)[0] };
  }
}

/** readLongOptions in the same shape. */
function ours(args: string[]): unknown {
  try {
    const { values, positionals } = readLongOptions(args, OPTIONS);
    return { values, positionals };
  } catch (err) {
    assert.ok(err instanceof OptionRefusal, String(err));
    return {
      code:
        err.kind === 'unknown'
          ? 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
          : 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE',
      first: err.message.split(':')[0],
    };
  }
}

describe('lib/cli/longOptions', () => {
  const lines: string[][] = [
    [],
    ['run-1'],
    ['run-1', '--lease', 'tok'],
    ['--lease=tok', 'run-1'],
    ['--lease=', 'run-1'],
    ['--lease=a=b'],
    ['--lease', 'a', '--lease', 'b'],
    ['--note', 'one', '--note=two', 'run-1', '--note', 'three'],
    ['--reclaim-stale', 'run-1', '--json'],
    ['--json', 'x', 'y'],
    ['-', 'run-1'],
    ['--', '--lease', 'x', '-y'],
    ['run-1', '--', '--'],
    ['--lease', '-'],
    ['--bogus'],
    ['--bogus=1'],
    ['-x'],
    ['-xyz', 'run-1'],
    ['-x=1'],
    ['---lease', 'x'],
    ['--=x'],
    ['--lease'],
    ['run-1', '--note'],
    ['--reclaim-stale=yes'],
    ['--json='],
    ['--lease', '--json'],
    ['--lease', '-5'],
    ['--__proto__', 'x'],
    ['--constructor'],
    ['--toString=1'],
  ];
  for (const args of lines) {
    it(`reads ${JSON.stringify(args)} as node:util parseArgs does`, () => {
      assert.deepEqual(ours(args), nodeReads(args));
    });
  }

  it('names each option given, in order, and says whether -- ended the options', () => {
    const read = readLongOptions(['--json', 'a', '--note', 'n', '--json', '--', '--x'], OPTIONS);
    assert.deepEqual(read.given, ['json', 'note', 'json']);
    assert.equal(read.terminated, true);
    assert.deepEqual(read.positionals, ['a', '--x']);
    assert.equal(readLongOptions(['a'], OPTIONS).terminated, false);
  });

  it('refuses in one line, naming the option as written', () => {
    assert.throws(
      () => readLongOptions(['--lease', '-x'], OPTIONS),
      (err: unknown) =>
        err instanceof OptionRefusal &&
        err.kind === 'value' &&
        err.option === '--lease' &&
        err.message ===
          "Option '--lease' argument is ambiguous: to give a value that starts with a dash, " +
            "write '--lease=-x'",
    );
    assert.throws(
      () => readLongOptions(['-abc'], OPTIONS),
      (err: unknown) =>
        err instanceof OptionRefusal && err.kind === 'unknown' && err.option === '-a',
    );
  });
});
