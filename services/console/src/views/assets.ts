/**
 * The console's own stylesheet and script (served from /console/assets/, like htmx): light and
 * dark from the system's preference, no inline style or script anywhere.
 */
export const CONSOLE_CSS = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --panel: #f6f8fa;
  --accent: #0b57d0; --accent-fg: #ffffff; --danger: #b3261e; --ok: #1a7f37;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9da7b3; --line: #30363d; --panel: #161b22;
    --accent: #7cacf8; --accent-fg: #0d1117; --danger: #ff8a80; --ok: #56d364; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); line-height: 1.5; }
a { color: var(--accent); }
.skip { position: absolute; left: -10000px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--panel); padding: .5rem; z-index: 1; }
.top { display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem; border-bottom: 1px solid var(--line); background: var(--panel); flex-wrap: wrap; }
.top .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
.top .who { margin-left: auto; color: var(--muted); }
.top form { display: flex; gap: .5rem; align-items: center; margin: 0; }
.frame { display: flex; min-height: calc(100vh - 3.5rem); }
.menu { width: 13rem; border-right: 1px solid var(--line); padding: 1rem; flex-shrink: 0; }
.menu > summary { cursor: pointer; font-weight: 600; }
@media (min-width: 48.01rem) {
  .menu > summary { display: none; }
  .menu::details-content { content-visibility: visible; display: contents; }
}
.side ul { list-style: none; margin: 0; padding: 0; }
.side a { display: block; padding: .35rem .5rem; border-radius: .3rem; text-decoration: none; }
.side a[aria-current="page"] { background: var(--accent); color: var(--accent-fg); }
main { padding: 1rem 2rem; flex: 1; max-width: 70rem; }
main.bare { max-width: 28rem; margin: 4rem auto; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; }
pre { background: var(--panel); padding: .75rem; border: 1px solid var(--line); overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
label { display: block; font-weight: 600; margin-top: .75rem; }
input, select, button { font: inherit; color: inherit; }
input[type="text"], input[type="email"], input[type="password"], input[type="number"], select {
  background: var(--bg); border: 1px solid var(--line); border-radius: .3rem; padding: .35rem .5rem; min-width: 14rem; }
button { background: var(--accent); color: var(--accent-fg); border: 0; border-radius: .3rem; padding: .4rem .9rem; cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); border: 1px solid var(--line); }
button.danger { background: var(--danger); color: var(--bg); }
.top .switcher label { display: inline; margin: 0; font-weight: 400; color: var(--muted); }
.top .switcher select { min-width: 10rem; }
.inline { display: flex; gap: .75rem; align-items: end; flex-wrap: wrap; margin: 1rem 0; }
.inline label { margin-top: 0; }
.check { display: flex; gap: .5rem; align-items: baseline; margin: .75rem 0 .5rem; }
.check label { display: inline; margin: 0; font-weight: 400; }
.row-actions { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
.row-actions form { display: flex; gap: .5rem; align-items: center; margin: 0; }
.row-actions select { min-width: 7rem; }
.notice { border: 1px solid var(--line); border-left: 4px solid var(--accent); background: var(--panel); padding: .75rem 1rem; margin: 1rem 0; }
.error { border-left-color: var(--danger); }
.secret { font-size: 1.05rem; user-select: all; }
.empty { color: var(--muted); padding: 1rem 0; }
.muted { color: var(--muted); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
th a { color: inherit; text-decoration: none; }
th a:hover, th a:focus-visible { text-decoration: underline; }
th[aria-sort] { color: var(--fg); }
.sort { display: inline-block; min-width: 1.2em; padding-left: .25rem; font-size: .8em; }
.filter { margin-bottom: 0; }
input[type="search"], textarea { background: var(--bg); border: 1px solid var(--line); border-radius: .3rem; padding: .35rem .5rem; min-width: 14rem; font: inherit; color: inherit; }
textarea { width: 100%; max-width: 40rem; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.pager { display: flex; gap: 1rem; align-items: baseline; flex-wrap: wrap; margin: .5rem 0 1rem; }
.chart { margin: 1rem 0; min-height: 300px; }
.chart .u-legend { color: var(--fg); }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
.chips { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem; }
.chip { border: 1px solid var(--line); border-radius: 1rem; padding: 0 .5rem; font-size: .85em; max-width: 24rem; overflow-wrap: anywhere; }
.chip.toward-spam { border-left: 3px solid var(--danger); }
.chip.toward-clean { border-left: 3px solid var(--ok); }
.chip .dir, .dir-spam, .dir-clean { font-size: .85em; color: var(--muted); }
.dir-spam, .dir-clean { font-weight: 600; }
.esc { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85em; background: var(--panel); border: 1px dashed var(--danger); border-radius: .2rem; padding: 0 .15rem; }
.value { white-space: pre-wrap; overflow-wrap: anywhere; unicode-bidi: isolate; }
dl.fields { display: grid; grid-template-columns: minmax(6rem, 14rem) 1fr; gap: .25rem 1rem; }
dl.fields dt { font-weight: 600; color: var(--muted); overflow-wrap: anywhere; }
dl.fields dd { margin: 0; overflow-wrap: anywhere; }
details.long summary { cursor: pointer; }
details.long[open] summary .value { display: none; }
.more { color: var(--accent); text-decoration: underline; }
.verdict-filter input[type="number"] { min-width: 6rem; width: 6rem; }
.verdict-filter input[type="date"] { background: var(--bg); border: 1px solid var(--line); border-radius: .3rem; padding: .3rem .4rem; }
.verdict-filter .note { align-self: center; margin: 0; }
pre.address { overflow-wrap: anywhere; }
.label-spam, .label-failed { color: var(--danger); font-weight: 600; }
.label-clean, .label-ok { color: var(--ok); font-weight: 600; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.bulk { margin: .75rem 0; }
.periods { display: flex; gap: 1rem; margin: .5rem 0; }
.periods a[aria-current] { font-weight: 700; text-decoration: none; color: var(--fg); border-bottom: 3px solid var(--accent); }
.pending { color: var(--muted); font-style: italic; }
.meter { width: 100%; max-width: 30rem; height: 1rem; }
.figures { display: flex; flex-wrap: wrap; gap: 1rem; margin: 1rem 0; padding: 0; list-style: none; }
.figures li { border: 1px solid var(--line); border-radius: .4rem; padding: .5rem 1rem; min-width: 10rem; background: var(--panel); }
.figures strong { display: block; font-size: 1.4rem; }
.gist { display: block; max-width: 32rem; overflow-wrap: anywhere; unicode-bidi: isolate; }
.gist .from { display: block; }
.gist .lines { display: block; color: var(--muted); }
td.verdict .score { display: block; font-variant-numeric: tabular-nums; }
.detail-actions { margin: .5rem 0 1rem; }
td, th, h1, h2, h3, p, li, dd { overflow-wrap: break-word; }
main { min-width: 0; }
input, select, textarea, button { max-width: 100%; }
.top .switcher button { white-space: nowrap; }
table.rows td.submission { min-width: 16rem; }
table.rows td.verdict, table.rows td.review { white-space: nowrap; }
.confirm .row-actions { margin: .5rem 0 0; }
@media (max-width: 48rem) {
  td, th, h1, h2, h3, p, li, dd, button { overflow-wrap: anywhere; }
  table.rows td.submission { min-width: 0; }
  table.rows td.verdict, table.rows td.review { white-space: normal; }
  .top { gap: .5rem; padding: .5rem; }
  .top .who { margin-left: 0; overflow-wrap: anywhere; }
  .top .switcher select { min-width: 0; max-width: 11rem; }
  .frame { display: block; min-height: 0; }
  .menu { width: auto; border-right: 0; border-bottom: 1px solid var(--line); padding: .5rem 1rem; }
  .menu[open] ul { display: flex; flex-wrap: wrap; gap: .25rem .75rem; margin-top: .5rem; }
  main { padding: .75rem 1rem; }
  main.bare { margin: 2rem auto; }
  input[type="text"], input[type="email"], input[type="password"], input[type="number"], input[type="search"], select, textarea { min-width: 0; width: 100%; }
  .inline > div { flex: 1 1 9rem; }
  .verdict-filter input[type="number"] { width: 100%; }
  main table:not(.rows) { display: block; overflow-x: auto; }
  table.rows thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.rows, table.rows tbody, table.rows tr, table.rows td { display: block; }
  table.rows tr { border-bottom: 1px solid var(--line); padding: .5rem 0; position: relative; }
  table.rows td { border: 0; padding: .1rem 0; }
  table.rows td.pick { position: absolute; right: 0; top: .5rem; }
  table.rows td.submission { padding-right: 2rem; }
  table.rows td.verdict { display: flex; gap: .75rem; }
  table.rows td.verdict .score { display: inline; }
  table.rows td.review, table.rows td.site { display: inline-block; margin-right: .75rem; color: var(--muted); font-size: .9em; }
  table.rows .row-actions { gap: .35rem; margin: .25rem 0; }
  table.rows .row-actions button { padding: .2rem .6rem; font-size: .9em; }
  table.rows .chips { margin: .15rem 0; }
  dl.fields { grid-template-columns: 1fr; }
  dl.fields dd { margin-bottom: .5rem; }
  .figures li { min-width: 0; flex: 1 1 8rem; }
  .chip { max-width: 100%; }
}
`;

/**
 * The copy buttons beside a secret: clicking one copies the text of the element it names. And on
 * every page, htmx's history cache is emptied: the console keeps none (historyCacheSize 0), and
 * one left by an older console must not outlive a sign-out either.
 */
export const CONSOLE_JS = `
try { sessionStorage.removeItem("htmx-history-cache"); } catch (e) { /* storage refused: nothing kept */ }
document.addEventListener("click", function (event) {
  var button = event.target instanceof Element ? event.target.closest("[data-copy]") : null;
  if (!button || !navigator.clipboard) return;
  var source = document.getElementById(button.getAttribute("data-copy"));
  if (source) navigator.clipboard.writeText(source.textContent.trim()).then(function () {
    button.textContent = "Copied";
  });
});
`;

/** The console's icon (a sieve's mesh), so browsers ask for it rather than for /favicon.ico. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0b57d0"/><path d="M6 10h20M6 16h20M6 22h20M10 6v20M16 6v20M22 6v20" stroke="#fff" stroke-width="2"/></svg>`;
