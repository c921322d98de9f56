/** `console.css` of the admin console. */
export const CONSOLE_CSS = String.raw`:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.45; --accent: #2557d6; --on-accent: #fff; --line: #8884; --muted: #595959; }
@media (prefers-color-scheme: dark) { :root { --muted: #ababab; --accent: #7aa7ff; --on-accent: #0b1a33; } }
body { margin: 0; background: Canvas; color: CanvasText; }
header { display: flex; align-items: center; gap: 1rem; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); }
header h1 { font-size: 1.1rem; margin: 0; flex: 1; }
header .locale { display: flex; align-items: center; gap: .4rem; }
header .locale select { width: auto; }
main, #messages { max-width: 72rem; margin: 0 auto; padding: 0 1.5rem; }
main { padding-bottom: 3rem; }
h2 { font-size: 1.4rem; margin: 1rem 0 .5rem; }
h3 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
h4 { margin: 1rem 0 .25rem; }
a { color: var(--accent); }
.crumbs { margin: 1rem 0 0; }
.tabs { display: flex; flex-wrap: wrap; gap: .25rem; border-bottom: 1px solid var(--line); margin-bottom: 1rem; }
.tabs a { padding: .35rem .6rem; text-decoration: none; border-radius: .4rem .4rem 0 0; font-size: .95rem; }
.tabs a[aria-current=page], .tab-menu a[aria-current=page] { background: var(--accent); color: var(--on-accent); }
.tab-menu { display: none; margin-bottom: 1rem; }
.tab-menu summary { padding: .5rem .75rem; border: 1px solid var(--line); border-radius: .4rem; cursor: pointer; font-weight: 600; }
.tab-menu-links { display: grid; grid-template-columns: 1fr 1fr; gap: .25rem; margin-top: .25rem; }
.tab-menu-links a { padding: .5rem; text-decoration: none; border-radius: .35rem; }
form { margin: 1rem 0; }
form.token { max-width: 28rem; margin: 3rem auto; }
.field { display: block; margin: .6rem 0; }
.field > span { display: block; font-weight: 600; font-size: .9rem; }
.field small { display: block; color: var(--muted); }
.check { display: grid; grid-template-columns: auto 1fr; gap: 0 .4rem; align-items: baseline; margin: .4rem 0; }
.check small { grid-column: 2; color: var(--muted); }
.rows { display: grid; grid-template-columns: 1fr 1fr 1fr auto; gap: 0 .75rem; align-items: end; }
.rows button { margin-bottom: .6rem; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); gap: 0 1.5rem; align-items: start; }
.grid > .wide { grid-column: 1 / -1; }
input, select, textarea { box-sizing: border-box; width: 100%; max-width: 40rem; padding: .45rem; font: inherit; border: 1px solid GrayText; border-radius: .35rem; }
input[type=checkbox] { width: auto; }
::placeholder { color: var(--muted); opacity: 1; }
fieldset { border: 1px solid var(--line); border-radius: .35rem; margin: .6rem 0; max-width: 40rem; min-width: 0; }
.settings-section { border-top: 1px solid var(--line); margin-top: 1.25rem; }
.settings-section .help, .integration > p { color: var(--muted); margin: 0 0 .5rem; max-width: 48rem; }
.field small code, .check small code { font-size: .85em; }
.integration { border: 1px solid var(--line); border-radius: .5rem; padding: 0 1rem 1rem; margin: 1rem 0; }
.snippet pre { background: #8881; padding: .6rem .75rem; border-radius: .35rem; margin: .25rem 0 .4rem; }
button { font: inherit; padding: .4rem .9rem; margin: .5rem .5rem 0 0; border-radius: .35rem; border: 1px solid GrayText; cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--on-accent); }
button.copy { padding: .1rem .5rem; margin: 0 0 0 .25rem; font-size: .85rem; vertical-align: baseline; }
button.link { border: none; background: none; color: var(--accent); text-decoration: underline; padding: 0; margin: 0; }
button.danger { background: #b3261e; border-color: #b3261e; color: #fff; }
dialog.confirm { max-width: 30rem; border: 1px solid var(--line); border-radius: .5rem; padding: 1rem 1.25rem; background: Canvas; color: CanvasText; }
dialog.confirm::backdrop { background: #0006; }
dialog.confirm p { margin-top: 0; }
.danger-zone { border: 1px solid #b3261e88; border-radius: .5rem; padding: 0 1rem 1rem; margin: 2rem 0 1rem; max-width: 40rem; }
button:disabled { opacity: .6; cursor: progress; }
:focus-visible { outline: 3px solid #f0a000; outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; font-size: .92rem; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { text-align: left; vertical-align: top; padding: .35rem .5rem; border-bottom: 1px solid var(--line); white-space: pre-line; overflow-wrap: anywhere; }
td .actions { display: flex; flex-wrap: wrap; }
td button { margin: 0 .4rem .2rem 0; }
code { font-family: ui-monospace, monospace; font-size: .9em; overflow-wrap: anywhere; }
pre { margin: 0; white-space: pre-wrap; }
.details { font-size: .8rem; }
.empty, .note { color: var(--muted); }
#messages p { padding: .6rem .8rem; border-radius: .35rem; margin: .75rem 0 0; }
#messages .ok { background: #e6f0e6; color: #1c4d1c; }
#messages .error { background: #fde8e8; color: #8a1c1c; }
.secret { border: 2px solid #f0a000; border-radius: .5rem; padding: .5rem 1rem 1rem; margin: 1rem 0; }
.secret dd { margin: 0 0 .5rem; }
.secret-value { font-size: 1rem; user-select: all; }
.user, .journey { border: 1px solid var(--line); border-radius: .5rem; padding: 0 1rem 1rem; margin: 1rem 0; }
textarea.code { font-family: ui-monospace, monospace; font-size: .85rem; max-width: 48rem; }
.user dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
.user dd { margin: 0; }
.operator-actions .actions { display: flex; flex-wrap: wrap; }
.scope-claim { border-bottom: 1px solid var(--line); margin-bottom: .5rem; }
.claim-tokens { display: flex; flex-wrap: wrap; gap: 0 1rem; }
.claim-fields details { margin: .5rem 0; }
/* journeys editor */
.journey-form { --problem: #b3261e; }
.journey-nodes { display: grid; grid-template-columns: repeat(auto-fill, minmax(19rem, 1fr)); gap: .75rem; align-items: start; }
.journey-node { border: 1px solid var(--line); border-radius: .5rem; padding: 0 .9rem .75rem; min-width: 0; }
.journey-node.start { border: 2px solid var(--accent); }
.journey-node h4 { display: flex; flex-wrap: wrap; align-items: baseline; gap: .5rem; overflow-wrap: anywhere; }
.journey-node .badge { background: var(--accent); color: var(--on-accent); border-radius: 1rem; padding: 0 .55rem; font-size: .8rem; font-weight: 600; }
.journey-node fieldset, .journey-add { max-width: none; }
.journey-form select[aria-invalid=true] { border: 2px solid var(--problem); }
.journey-form select[aria-invalid=true] + small, .journey-problem, .node-problem, .json-problem { color: var(--problem); font-weight: 600; }
.journey-problem:empty, .json-problem:empty { display: none; }
.journey-option { border-bottom: 1px solid var(--line); margin-bottom: .4rem; }
.journey-add { display: grid; grid-template-columns: 1fr 1fr auto; gap: 0 .75rem; align-items: end; margin-top: 1rem; }
.journey-add button { margin-bottom: .6rem; }
.journey-add .journey-problem { grid-column: 1 / -1; margin: 0 0 .5rem; }
.journey-json { margin: 1rem 0; }
.journey-rename { border-top: 1px solid var(--line); margin-top: .75rem; }
.journey-json summary { cursor: pointer; font-weight: 600; padding: .25rem 0; }
@media (prefers-color-scheme: dark) { .journey-form { --problem: #ff9e96; } }
@media (max-width: 40rem) { .journey-add { grid-template-columns: 1fr; } .journey-nodes { grid-template-columns: 1fr; } }
.localised .note { margin: 0; font-size: .9rem; }
.authorization-type { max-width: 48rem; }
.authorization-types + button { margin-top: 0; }
.form-error { background: #fde8e8; color: #8a1c1c; padding: .6rem .8rem; border-radius: .35rem; max-width: 40rem; overflow-wrap: anywhere; }
@media (max-width: 40rem) {
  header, main, #messages { padding-left: .75rem; padding-right: .75rem; }
  header { flex-wrap: wrap; }
  .tabs { display: none; }
  .tab-menu { display: block; }
  .rows { grid-template-columns: 1fr; }
  .user dl { grid-template-columns: 1fr; }
  table, tbody, tr, td { display: block; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  tr { border: 1px solid var(--line); border-radius: .5rem; margin: .5rem 0; padding: .25rem .6rem; }
  td { border: none; padding: .2rem 0; overflow-wrap: anywhere; }
  td[data-label]:not([data-label=""])::before { content: attr(data-label); display: block; font-weight: 600; font-size: .8rem; }
}
`;
