import assert from 'node:assert/strict';
import { enableCodexHooks } from '../../lib/admin/codexFeature.js';
import { MalformedSettings } from '../../lib/admin/hookSettings.js';

describe('lib/admin/codexFeature', () => {
  it('a missing or blank file gets a [features] table with the flag', () => {
    for (const text of [undefined, '', '\n'])
      assert.deepEqual(enableCodexHooks(text), {
        text: '[features]\ncodex_hooks = true\n',
        outcome: 'added',
      });
  });

  it('appends the table after what is there, keeping every byte of it', () => {
    assert.deepEqual(enableCodexHooks('model = "o3"\n[profiles.x]\nmodel = "y"'), {
      text: 'model = "o3"\n[profiles.x]\nmodel = "y"\n\n[features]\ncodex_hooks = true\n',
      outcome: 'added',
    });
  });

  it('puts the key right under an existing [features], before the next table', () => {
    const text = 'a = 1\n[features]\nweb_search = true\n[mcp]\nx = 2\n';
    assert.deepEqual(enableCodexHooks(text), {
      text: 'a = 1\n[features]\ncodex_hooks = true\nweb_search = true\n[mcp]\nx = 2\n',
      outcome: 'added',
    });
  });

  it('leaves a true flag alone, in the table or dotted, comments and spacing included', () => {
    for (const text of [
      '[features]\n  codex_hooks=true   # on\n',
      'features.codex_hooks = true\n[mcp]\n',
    ])
      assert.deepEqual(enableCodexHooks(text), { text, outcome: 'present' });
  });

  it('turns a false flag on where it is; a codex_hooks of another table is not it', () => {
    assert.deepEqual(enableCodexHooks('[features]\ncodex_hooks = false\n'), {
      text: '[features]\ncodex_hooks = true\n',
      outcome: 'added',
    });
    assert.deepEqual(enableCodexHooks('features.codex_hooks = false\n'), {
      text: 'features.codex_hooks = true\n',
      outcome: 'added',
    });
    assert.deepEqual(enableCodexHooks('[other]\ncodex_hooks = true\n'), {
      text: '[other]\ncodex_hooks = true\n\n[features]\ncodex_hooks = true\n',
      outcome: 'added',
    });
  });

  it('refuses the shapes with no safe place to write: an inline table, [features] twice', () => {
    for (const text of ['features = { web_search = true }\n', '[features]\n[features]\n'])
      assert.throws(() => enableCodexHooks(text), MalformedSettings);
  });
});
