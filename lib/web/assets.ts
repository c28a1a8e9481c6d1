// The page's own script and style sheet, shipped inside the bundle (docs/web.md §2: nothing
// is fetched from anywhere else). The script adds live updates to pages that work without
// it: on each `change` event of /events it fetches the page again and swaps its <main>,
// unless the person is typing in one of its forms (a note or a reason is never wiped).

/** /assets/live.js */
export const LIVE_JS = `'use strict';
(function () {
  if (!window.EventSource) return;
  var busy = false;
  function typing() {
    var a = document.activeElement;
    return a && (a.tagName === 'TEXTAREA' || a.tagName === 'INPUT') && a.value !== '';
  }
  function refresh() {
    if (busy || typing()) return;
    busy = true;
    fetch(location.pathname, { credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) {
        if (text === null) return;
        var next = new DOMParser().parseFromString(text, 'text/html').getElementById('main');
        var now = document.getElementById('main');
        if (next && now) now.replaceWith(next);
        document.body.setAttribute('data-refreshed', String(Date.now()));
      })
      .finally(function () { busy = false; });
  }
  var events = new EventSource('/events');
  events.addEventListener('change', refresh);
})();
`;

/** /assets/style.css */
export const STYLE_CSS = `body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d1d1f; }
nav { background: #1d1d1f; padding: 8px 16px; }
nav a { color: #fff; margin-right: 16px; text-decoration: none; }
main { padding: 16px; max-width: 1200px; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
code, pre { font-family: ui-monospace, monospace; font-size: 12px; }
pre { background: #f6f6f6; padding: 8px; overflow-x: auto; white-space: pre-wrap; }
.bad { color: #b00020; font-weight: 600; }
.ok { color: #0a7d32; }
.status { font-weight: 600; }
.diff-add { color: #0a7d32; }
.diff-del { color: #b00020; }
form.action { display: inline-block; margin: 4px 8px 4px 0; padding: 8px; border: 1px solid #ddd; }
textarea, input[type=text] { width: 320px; }
.notice { padding: 8px; background: #fff4e5; border: 1px solid #f0b95b; }
`;
