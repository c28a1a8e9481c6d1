// The names the bridge uses on the NATS server (docs/bridge.md §2), exactly: two nodes
// that disagree on one character never meet on the wire.
import assert from 'node:assert/strict';
import {
  consumerNameOf,
  messageIdOf,
  ownersBucketOf,
  streamNameOf,
  streamSubjectsOf,
  subjectOf,
} from '../../lib/bridge/wireNames.js';

describe('lib/bridge/wireNames', () => {
  it('the stream is BATON_<SWARM>: upper-cased, every - turned into _', () => {
    assert.equal(streamNameOf('demo'), 'BATON_DEMO');
    assert.equal(streamNameOf('my-swarm-2'), 'BATON_MY_SWARM_2');
    assert.equal(streamNameOf('a--b'), 'BATON_A__B');
  });

  it('the stream listens on baton.<swarm>.inbox.* (the swarm as written, not upper-cased)', () => {
    assert.equal(streamSubjectsOf('my-swarm'), 'baton.my-swarm.inbox.*');
  });

  it("a role's subject is baton.<swarm>.inbox.<role>, the role's case kept", () => {
    assert.equal(subjectOf('my-swarm', 'QA'), 'baton.my-swarm.inbox.QA');
    assert.equal(subjectOf('demo', 'reviewer'), 'baton.demo.inbox.reviewer');
  });

  it("a role's durable consumer is baton_<role>", () => {
    assert.equal(consumerNameOf('QA'), 'baton_QA');
    assert.equal(consumerNameOf('code-reviewer'), 'baton_code-reviewer');
  });

  it("the owners' KV bucket is baton_<swarm>_owners", () => {
    assert.equal(ownersBucketOf('my-swarm'), 'baton_my-swarm_owners');
  });

  it('the Nats-Msg-Id of a (handoff, recipient) pair is <id>:<role>: one id, two recipients, two ids', () => {
    const id = '20260615T140531Z_000001_from_coder';
    assert.equal(messageIdOf(id, 'reviewer'), '20260615T140531Z_000001_from_coder:reviewer');
    assert.notEqual(messageIdOf(id, 'reviewer'), messageIdOf(id, 'QA'));
  });
});
