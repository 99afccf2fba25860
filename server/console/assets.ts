/**
 * The console's stylesheet and its one small script, served from this process (no CDN).
 * The script only enhances: pages work with plain form posts; it reloads a page whose workflow
 * state changed (polling the page's watch URL) and adds rows to table answers.
 */
export const CONSOLE_CSS = `
:root { color-scheme: light; --fg: #1a1a1a; --muted: #555; --accent: #0b57d0; --err: #b3261e; --bg: #fff; --line: #c8c8c8; }
* { box-sizing: border-box; }
body { font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 0; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px; }
.top { display: flex; justify-content: space-between; align-items: center; padding: 8px 24px; background: #f2f4f8; border-bottom: 1px solid var(--line); }
.top a { color: var(--accent); font-weight: 600; }
.signout { margin: 0; } .signout button { margin: 0; padding: 4px 12px; }
main { max-width: 1000px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 1.5rem; } h3 { font-size: 1.05rem; }
a { color: var(--accent); }
a:focus, button:focus, input:focus, textarea:focus, select:focus, summary:focus { outline: 3px solid #f4b400; outline-offset: 2px; }
.field { margin: 0 0 16px; } label, legend { font-weight: 600; display: block; }
.hint { color: var(--muted); margin: 2px 0 6px; font-size: .95rem; }
.req { color: var(--muted); font-weight: 400; }
input, textarea, select { font: inherit; padding: 6px 8px; border: 1px solid #767676; border-radius: 4px; width: 100%; max-width: 100%; }
input[type=radio] { width: auto; } .choice { display: flex; gap: 8px; align-items: baseline; } .choice label { font-weight: 400; }
.mono, pre, code { font-family: ui-monospace, monospace; font-size: .9rem; }
pre { background: #f6f8fa; padding: 12px; overflow: auto; border: 1px solid var(--line); white-space: pre-wrap; word-break: break-word; }
button { font: inherit; padding: 8px 16px; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; margin: 4px 8px 4px 0; }
button.secondary { background: #fff; color: var(--accent); }
.error { color: var(--err); font-weight: 600; } .invalid input, .invalid textarea, [aria-invalid=true] { border-color: var(--err); border-width: 2px; }
.muted { color: var(--muted); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0; } th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f2f4f8; } caption { text-align: left; font-weight: 600; }
table.grid td { padding: 2px; } table.grid input { border: 0; min-width: 8rem; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 4px 0; } dl.kv dt { font-weight: 600; } dl.kv dd { margin: 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 8px 0; } dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; }
table.tables-found code, table.tables-found td:last-child { overflow-wrap: anywhere; } table.tables-found td:first-child { min-width: 16rem; max-width: 22rem; }
.warning { border-left: 4px solid var(--err); padding-left: 8px; }
fieldset.options { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; } fieldset.options legend { font-weight: 600; }
.stages { display: flex; flex-wrap: wrap; gap: 4px; list-style: none; padding: 0; }
.stages li { padding: 2px 8px; border: 1px solid var(--line); border-radius: 12px; font-size: .85rem; color: var(--muted); }
.stages li.current { background: var(--accent); color: #fff; border-color: var(--accent); }
.badge { font-size: .8rem; border: 1px solid var(--line); border-radius: 8px; padding: 0 6px; font-weight: 400; }
.question, .review { border: 1px solid var(--line); border-radius: 8px; padding: 16px; margin: 16px 0; }
.count { color: var(--muted); margin-top: 0; }
.answer { font-size: 1.05rem; white-space: pre-wrap; }
.flows { list-style: none; padding: 0; } .flows li { margin: 0 0 12px; }
figure img { max-width: 100%; border: 1px solid var(--line); }
.md pre { white-space: pre; } .md p { margin: 6px 0; } .answer-md { font-size: 1.05rem; }
pre.code { white-space: pre; max-height: 32rem; }
.proposal { border: 1px solid var(--line); border-radius: 8px; padding: 8px 24px 16px; margin: 16px 0; max-width: 60rem; }
.proposal h3.doc-title { font-size: 1.3rem; } .proposal h4 { font-size: 1.05rem; margin: 1.25rem 0 .25rem; border-bottom: 1px solid var(--line); }
.status-completed { color: #0a7a2f; border-color: #0a7a2f; } .status-failed, .status-terminated, .status-timed_out { color: var(--err); border-color: var(--err); }
.status-running { color: var(--accent); border-color: var(--accent); }
`;

export const CONSOLE_JS = `
(function () {
  'use strict';
  // Table answers: "Add row" copies the last row of the grid with empty cells.
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button.add-row');
    if (!button) return;
    var table = button.closest('fieldset').querySelector('table.grid tbody');
    var last = table.rows[table.rows.length - 1];
    var row = last.cloneNode(true);
    var n = table.rows.length + 1;
    Array.prototype.forEach.call(row.querySelectorAll('input'), function (input) {
      input.value = '';
      input.setAttribute('aria-label', input.getAttribute('aria-label').replace(/row \\d+$/, 'row ' + n));
    });
    table.appendChild(row);
    row.querySelector('input').focus();
  });
  // Live progress: the page names a watch URL and the state it shows; reload when it changes.
  var url = document.body.getAttribute('data-watch-url');
  var key = document.body.getAttribute('data-watch-key');
  if (!url) return;
  var poll = function () {
    fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (data && data.key !== key) { window.location.reload(); return; }
        setTimeout(poll, 700);
      }, function () { setTimeout(poll, 2000); });
  };
  setTimeout(poll, 500);
})();
`;
