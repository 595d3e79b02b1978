// The playground's HTML and the Content-Security-Policy it runs under; the same page is written by the static build.
import { pagePolicy } from '../http/security-headers.js';

/** Why the static build cannot push: its origin is whatever hosts the files, which must not be sent the API token. */
const NO_PUSH = 'Pushing needs the page served by the service, at {admin}/playground: this copy would send the token to whoever hosts it';

/**
 * The page; `assets` is where its scripts and stylesheet are (`/playground/assets/` served, `./` built). Only the page
 * the service serves pushes: it sends the token to its own origin, which is the service only when the service served it.
 */
export const playgroundPage = (assets: string, where: 'service' | 'static') =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>authz-graph playground</title>
<link rel="stylesheet" href="${assets}playground.css">
<script defer src="${assets}playground.js"></script></head>
<body>
<header>
  <h1>authz-graph playground</h1>
  <label>Example <select id="example"></select></label>
  <label class="button">Open… <input type="file" id="open" accept=".json,.yaml,.yml,application/json"></label>
  <button id="save" type="button">Save</button>
  <input id="name" placeholder="Scenario name" aria-label="Scenario name">
  <span class="push"><input id="token" type="password" placeholder="API token" aria-label="API token" autocomplete="off"${where === 'static' ? ' disabled' : ''}>
  <button id="push" type="button"${where === 'static' ? ` disabled title="${NO_PUSH}"` : ''}>Push to server</button></span>
  <output id="status"></output>
</header>
<main>
  <section class="pane">
    <h2>Definitions <small>JSON</small></h2>
    ${editor('definitions', 'Definitions')}
    <details id="steps-pane"><summary>Steps <small>JSON: add, delete, define, each with its own assertions</small></summary>
    ${editor('steps', 'Steps')}</details>
  </section>
  <section class="pane">
    <h2>Tuples <small>grant S#p@O: a direct grant</small></h2>
    ${editor('tuples', 'Tuples')}
  </section>
  <section class="pane">
    <h2>Assertions</h2>
    ${editor('assertions', 'Assertions')}
    <pre class="help">User:ann read Doc:1 = true
objects User:ann read Doc = 1 2
subjects read Doc:1 User = ann
refused User:ann#nope@Doc:1</pre>
  </section>
  <section class="pane verdicts">
    <h2>Verdicts <span id="summary"></span></h2>
    <ul id="problems"></ul>
    <ul id="results"></ul>
    <h2>Path</h2>
    <p id="decision"></p>
    <div class="graph"><svg id="graph" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="The decision's path"></svg></div>
  </section>
</main>
</body></html>
`;

const editor = (id: string, label: string) =>
  `<div class="editor"><div class="gutter"><div class="gutter-lines"></div></div>`
  + `<textarea id="${id}" aria-label="${label}" spellcheck="false" wrap="off" autocomplete="off" autocapitalize="off"></textarea></div>`;

/** Its own script and stylesheet and nothing else, no inline code; fetch to its own origin only (the push). */
export const PLAYGROUND_CSP = pagePolicy();
