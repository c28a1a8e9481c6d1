// Credentials never reach a log line, bridge.json or --json (docs/bridge.md §4):
// redactSecrets removes each line of a credentials file's content, and any JWT- or
// nkey-seed-shaped token, from a text; ordinary text passes unchanged.
import assert from 'node:assert/strict';
import { redactSecrets } from '../../lib/bridge/secrets.js';

// A user credentials file as `nsc` writes it (the JWT and the seed are made up, with the real shapes).
const JWT =
  'eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.eyJqdGkiOiJBQkNERUZHSElKS0xNTk9QIiwic3ViIjoiVUFCQyJ9.c2lnbmF0dXJlLWJ5dGVzLWhlcmU';
const SEED = 'SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTBE';
const CREDS = `-----BEGIN NATS USER JWT-----
${JWT}
------END NATS USER JWT------

************************* IMPORTANT *************************
NKEY Seed printed below can be used to sign and prove identity.
NKEYs are sensitive and should be treated as secrets.

-----BEGIN USER NKEY SEED-----
${SEED}
------END USER NKEY SEED------

*************************************************************
`;

describe('lib/bridge/secrets', () => {
  it('removes the JWT and the seed lines of the credentials content from an error text', () => {
    const text = `authentication failed for jwt ${JWT} with seed ${SEED} at nats://127.0.0.1:4222`;
    const out = redactSecrets(text, CREDS);
    assert.equal(
      out,
      'authentication failed for jwt [redacted] with seed [redacted] at nats://127.0.0.1:4222',
    );
  });

  it('removes any line of the credentials content, whatever its shape (not only the JWT and the seed)', () => {
    const secret = 'token hunter2-not-a-jwt-at-all';
    assert.equal(
      redactSecrets(`server said: ${secret}!`, `user bob\n${secret}\n`),
      'server said: [redacted]!',
    );
    assert.equal(
      redactSecrets('user bob logged in', `user bob\n${secret}\n`),
      '[redacted] logged in',
      'a line of 8 characters is a secret too',
    );
  });

  it('matches the lines trimmed: CR LF files and indented lines', () => {
    const secret = 'my-very-secret-token';
    assert.equal(
      redactSecrets(`x ${secret} y`, `  ${secret}\r\nother line here\r\n`),
      'x [redacted] y',
    );
  });

  it('every occurrence is removed, not only the first', () => {
    const secret = 'secret-value-1234';
    assert.equal(redactSecrets(`${secret} and ${secret}`, secret), '[redacted] and [redacted]');
  });

  it("leaves the file's frame lines and short lines alone (they would eat ordinary text)", () => {
    const text = '--- a b c * x ---';
    assert.equal(redactSecrets(text, '---\n*\nab\nshort\n'), text);
    assert.equal(redactSecrets('connection refused', 'abc\n\n'), 'connection refused');
  });

  it('redacts JWT-shaped and seed-shaped tokens even without the credentials content', () => {
    assert.equal(redactSecrets(`bad jwt ${JWT}`), 'bad jwt [redacted]');
    assert.equal(redactSecrets(`seed=${SEED};`), 'seed=[redacted];');
    for (const kind of ['SO', 'SA', 'SN', 'SC', 'SP', 'SX', 'SU']) {
      const seed = `${kind}${'A'.repeat(40)}`;
      assert.equal(redactSecrets(`k ${seed} k`), 'k [redacted] k', kind);
    }
  });

  it('leaves ordinary text alone: errors, URLs, public nkeys, upper-case words, short base32', () => {
    const texts = [
      'connect ECONNREFUSED 127.0.0.1:4222',
      'disconnected from 127.0.0.1:4222',
      'nats: Authorization Violation',
      'public key UAHJ3QDWEJ2LAFXVDXXP3YLFMZ4NQ6WGIMFPDDQ6DMDFQA3BQ37VFRKS is fine',
      'SERVICE UNAVAILABLE SOMETHING',
      `${'S'.repeat(3)}UA${'B'.repeat(10)}`,
      'eyJ alone is not a token, nor is eyJabc.def',
      "too large for the bridge: 2000000 bytes is over the server's max_payload of 1048576",
    ];
    for (const text of texts) assert.equal(redactSecrets(text), text);
    for (const text of texts)
      assert.equal(
        redactSecrets(text, CREDS.replace(/^NKEY.*\n/m, '').replace(/^NKEYs.*\n/m, '')),
        text,
      );
  });
});
