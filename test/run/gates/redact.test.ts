import assert from 'node:assert/strict';
import { REDACTED, redactArgv, redactSecrets } from '../../../lib/run/gates/redact.js';

const R = REDACTED;

describe('lib/run/gates/redact', () => {
  it('redacts the value of NAME=value assignments whose name holds a secret word, in any case, keeping the name', () => {
    assert.equal(redactSecrets('GITHUB_TOKEN=abc123 npm test'), `GITHUB_TOKEN=${R} npm test`);
    assert.equal(
      redactSecrets('export AWS_SECRET_ACCESS_KEY="abc def"; next'),
      `export AWS_SECRET_ACCESS_KEY=${R}; next`,
    );
    assert.equal(
      redactSecrets("db.password = 'p w'\napi-key=k1 credentials=c1 passwd=x"),
      `db.password = ${R}\napi-key=${R} credentials=${R} passwd=${R}`,
    );
    assert.equal(redactSecrets('run --token=abc --Secret=x'), `run --token=${R} --Secret=${R}`);
    assert.equal(
      redactSecrets('if (token == expected) done=1'),
      'if (token == expected) done=1',
      'a comparison is not an assignment',
    );
  });

  it('redacts NAME: value (YAML, headers, logs), with an auth scheme word kept and its credential redacted', () => {
    assert.equal(redactSecrets('password: hunter2\nuser: ann'), `password: ${R}\nuser: ann`);
    assert.equal(redactSecrets("client_secret: 'two words' # x"), `client_secret: ${R} # x`);
    assert.equal(redactSecrets('X-Api-Key: Bearer abcdefgh12345'), `X-Api-Key: Bearer ${R}`);
    assert.equal(redactSecrets('see key://x and a::key::b'), 'see key://x and a::key::b');
  });

  it('redacts "name": "value" of quoted keys, keeping the JSON shape', () => {
    const json = JSON.stringify({
      api_key: 'abc',
      name: 'x',
      accessToken: 12345,
      nested: { Password: 'p"q' },
    });
    assert.deepEqual(JSON.parse(redactSecrets(json)), {
      api_key: R,
      name: 'x',
      accessToken: R,
      nested: { Password: R },
    });
    assert.equal(redactSecrets(`{'Secret': 'v', 'keys': [1]}`), `{'Secret': '${R}', 'keys': [1]}`);
  });

  it('redacts Authorization headers and bare Bearer tokens', () => {
    assert.equal(
      redactSecrets('curl -H "Authorization: Bearer eyJhbGciOi.xx.yy" x'),
      `curl -H "Authorization: Bearer ${R}" x`,
    );
    assert.equal(redactSecrets('authorization=Basic dXNlcjpwYXNz'), `authorization=Basic ${R}`);
    assert.equal(
      redactSecrets('{"Authorization": "token abc"}'),
      `{"Authorization": "token ${R}"}`,
    );
    assert.equal(redactSecrets('sent Bearer abcdefghijk'), `sent Bearer ${R}`);
  });

  it('redacts common key formats wherever they appear', () => {
    const text =
      'a sk-ant-api03-abcdefghijklmnop, b sk-proj-ABCDEFGHIJKLMNOPQR, ghp_abcdefghijklmnopqrstuvwxyz0123 gho_abcdefghijklmnopqrst1 github_pat_11ABCDEFG0123456789abcdef (AKIAABCDEFGHIJKLMNOP)';
    assert.equal(redactSecrets(text), `a ${R}, b ${R}, ${R} ${R} ${R} (${R})`);
    assert.equal(
      redactSecrets('task-abcdefghijklmnopqrstu sk-learn AKIAshort'),
      'task-abcdefghijklmnopqrstu sk-learn AKIAshort',
      'look-alikes stay',
    );
  });

  it('redacts PEM private-key blocks whole, and one cut off at either end', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\ndef=\n-----END RSA PRIVATE KEY-----';
    assert.equal(
      redactSecrets(`before\n${pem}\nmiddle\n${pem.replace(/RSA /g, '')}\nafter`),
      `before\n${R}\nmiddle\n${R}\nafter`,
    );
    assert.equal(
      redactSecrets('head\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk'),
      `head\n${R}`,
      'a head cut inside a block',
    );
    assert.equal(
      redactSecrets('b3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\ntail'),
      `${R}\ntail`,
      'a tail that starts inside a block',
    );
    assert.equal(
      redactSecrets('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----'),
      '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
      'a certificate is public',
    );
  });

  it("redacts a URL's password and leaves text without secrets alone", () => {
    assert.equal(
      redactSecrets('git clone https://ann:pa55@host/r.git'),
      `git clone https://ann:${R}@host/r.git`,
    );
    const plain = 'ok 12 tests passed: monkey business\nhttps://example.com/a:b@c';
    assert.equal(redactSecrets(plain), plain);
    assert.equal(
      redactSecrets(redactSecrets('TOKEN=abc')),
      `TOKEN=${R}`,
      'redacting twice changes nothing more',
    );
  });

  it('stays fast on long runs that almost match (no super-linear backtracking)', () => {
    for (const text of [
      'a'.repeat(65536),
      'key'.repeat(21845),
      'x://'.repeat(16384),
      '"'.repeat(65536),
      `${'k_'.repeat(32768)}=`,
    ]) {
      const started = performance.now();
      redactSecrets(text);
      assert.ok(
        performance.now() - started < 500,
        `${text.slice(0, 8)}… took ${performance.now() - started} ms`,
      );
    }
  });

  it('redactArgv redacts each argument and the value after a secret-named option', () => {
    assert.deepEqual(
      redactArgv([
        'curl',
        '--token',
        'abc',
        '-password',
        'p',
        '--api-key=y',
        '-H',
        'Authorization: Bearer abcdefghij',
        'TOKEN=x',
        'plain',
      ]),
      [
        'curl',
        '--token',
        R,
        '-password',
        R,
        `--api-key=${R}`,
        '-H',
        `Authorization: Bearer ${R}`,
        `TOKEN=${R}`,
        'plain',
      ],
    );
    assert.deepEqual(redactArgv(['token', 'x']), ['token', 'x'], 'a bare word is not an option');
  });
});
