// lib/handoff/markdownFrontMatter: front matter read as YAML with every value kept as the
// string written (`00`, dates), the Markdown after it, no results shared between calls, and
// no front matter language but YAML (gray-matter would eval `---js` and type `---json`).
import assert from 'node:assert/strict';
import { readMarkdownFrontMatter } from '../../lib/findings/frontMatter.js';

describe('lib/findings/frontMatter', () => {
  it('splits the front matter from the Markdown after it', async () => {
    const doc = await readMarkdownFrontMatter(
      '---\nverdict: PASS\nsummary: fine\n---\n# Findings\n- none\n',
    );
    assert.deepEqual(doc, {
      data: { verdict: 'PASS', summary: 'fine' },
      content: '# Findings\n- none\n',
      hasFrontMatter: true,
    });
  });

  it('keeps every value the string written: 00, numbers, booleans, dates, null', async () => {
    const doc = await readMarkdownFrontMatter(
      '---\npriority: 00\ncount: 12\nok: true\nwhen: 2026-06-15\nat: 2026-06-15T14:05:31Z\nnone: null\n---\n',
    );
    assert.deepEqual(doc.data, {
      priority: '00',
      count: '12',
      ok: 'true',
      when: '2026-06-15',
      at: '2026-06-15T14:05:31Z',
      none: 'null',
    });
  });

  it('says there is front matter when the block is empty or holds only comments', async () => {
    for (const block of ['', '# reviewed by hand\n']) {
      assert.deepEqual(
        await readMarkdownFrontMatter(`---\n${block}---\n- [LOW] a: b\n`),
        { data: {}, content: '- [LOW] a: b\n', hasFrontMatter: true },
        block,
      );
    }
  });

  it('says when there is no front matter, and gives the whole text as content', async () => {
    for (const text of ['# Title\n- [HIGH] a: b\n', '']) {
      assert.deepEqual(await readMarkdownFrontMatter(text), {
        data: {},
        content: text,
        hasFrontMatter: false,
      });
    }
  });

  it('throws on front matter that is not YAML', async () => {
    await assert.rejects(readMarkdownFrontMatter('---\nverdict: [PASS\n---\n'));
  });

  it('throws on front matter that is not a mapping (a list, a bare string)', async () => {
    for (const block of ['- a\n- b', 'just words']) {
      await assert.rejects(
        readMarkdownFrontMatter(`---\n${block}\n---\nbody\n`),
        /not a mapping/,
        block,
      );
    }
  });

  it('never runs or types a front matter in another language (---js, ---javascript, ---coffee, ---json)', async () => {
    const probe = globalThis as { batonFrontMatterProbe?: string };
    delete probe.batonFrontMatterProbe;
    for (const language of ['js', 'JavaScript', 'coffee', 'json']) {
      const body =
        language === 'json'
          ? '{"verdict": 5}'
          : '{ verdict: (globalThis.batonFrontMatterProbe = "ran", "PASS") }';
      await assert.rejects(
        readMarkdownFrontMatter(`---${language}\n${body}\n---\n- [LOW] a: b\n`),
        /YAML/,
        language,
      );
    }
    assert.equal(probe.batonFrontMatterProbe, undefined);
  });

  it('reads ---yaml and ---yml as YAML', async () => {
    for (const language of ['yaml', 'yml']) {
      assert.deepEqual((await readMarkdownFrontMatter(`---${language}\nverdict: 00\n---\n`)).data, {
        verdict: '00',
      });
    }
  });

  it('returns independent objects for equal texts (no cache shared between calls)', async () => {
    const text = '---\nsummary: first\n---\nbody\n';
    const first = await readMarkdownFrontMatter(text);
    first.data.summary = 'changed';
    first.data.extra = 'added';
    const second = await readMarkdownFrontMatter(text);
    assert.notEqual(second, first);
    assert.notEqual(second.data, first.data);
    assert.deepEqual(second.data, { summary: 'first' });
  });
});
