// gray-matter (with its own js-yaml) as a bundle of its own (dist/bin/baton-front-matter.js),
// loaded only when Markdown with front matter is read (lib/findings/frontMatter.ts).
module.exports = require('gray-matter');
