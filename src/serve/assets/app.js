// The search page. Its state (query, filters, view, open entry) lives in the URL,
// so that a page can be shared and the back button walks it. Every value
// from the API reaches the page as text (textContent, append of strings,
// links only of http(s) URLs), never as markup: hostile titles stay inert.
"use strict";

const FILTERS = ["tag", "about", "section", "year", "venue", "kind", "collection"];
// Filters that may repeat: all of their values hold.
const MULTI = ["tag", "about"];
const SINGLE = FILTERS.filter((name) => !MULTI.includes(name));
const FACET_NAMES = { tag: "Tags", section: "Sections", venue: "Venues", kind: "Kinds", collection: "Collections" };
const FACETS_SHOWN = 8;
const LIMIT = 20;
const INBOX_LIMIT = 50;

const $ = (id) => document.getElementById(id);

// An element with attributes and children (strings become text nodes).
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined) continue;
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

// A link only to the web: a `javascript:` URL in data must not run.
function safeUrl(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch (_) {
    return null;
  }
}

// The API's answer; its error's message thrown when it is an error.
async function api(url, signal) {
  const response = await fetch(url, { signal });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

// ---- state in the URL ------------------------------------------------------

function readState() {
  const p = new URLSearchParams(location.search);
  const filters = {};
  for (const name of MULTI) filters[name] = p.getAll(name);
  for (const name of SINGLE) filters[name] = p.get(name) || "";
  const view = p.get("view") === "inbox" ? "inbox" : "";
  return { q: p.get("q") || "", filters, entry: p.get("entry") || "", view, since: (view && p.get("since")) || "" };
}

// The search's parameters, as /api/search takes them.
function params(state) {
  const p = new URLSearchParams();
  if (state.q) p.set("q", state.q);
  for (const name of MULTI) for (const value of state.filters[name]) p.append(name, value);
  for (const name of SINGLE) if (state.filters[name]) p.set(name, state.filters[name]);
  return p;
}

function stateUrl(state) {
  const p = params(state);
  if (state.view) p.set("view", state.view);
  if (state.view && state.since) p.set("since", state.since);
  if (state.entry) p.set("entry", state.entry);
  const query = p.toString();
  return "/" + (query ? "?" + query : "");
}

let current = readState();
// Keystrokes of one burst of typing make one history entry.
let typing = false;
let typingTimer = 0;

function go(next, replace) {
  const url = stateUrl(next);
  // The state marks pages this script made: leaving an entry goes back to
  // one of those, else to the search.
  if (replace) history.replaceState({ app: true }, "", url);
  else history.pushState({ app: true }, "", url);
  current = next;
  render();
}

function withFilters(change) {
  const filters = { ...current.filters, ...change };
  for (const name of MULTI) filters[name] = [...filters[name]];
  return { ...current, filters, entry: "" };
}

function setFilter(name, value) {
  typing = false;
  if (MULTI.includes(name)) {
    const values = current.filters[name].includes(value)
      ? current.filters[name].filter((t) => t !== value)
      : [...current.filters[name], value];
    go(withFilters({ [name]: values }));
  } else {
    go(withFilters({ [name]: current.filters[name] === value ? "" : value }));
  }
}

function openEntry(id) {
  typing = false;
  go({ ...current, entry: id });
}

// ---- views -------------------------------------------------------------------

// One renderer a view.
const views = {
  search: { element: "search-view", render: renderSearch },
  inbox: { element: "inbox-view", render: renderInbox },
  entry: { element: "entry-view", render: renderEntry },
};

function render() {
  const name = current.entry ? "entry" : current.view || "search";
  for (const [other, view] of Object.entries(views)) $(view.element).hidden = other !== name;
  for (const link of document.querySelectorAll("#views a")) {
    if (link.dataset.view === (current.view || "search")) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if ($("q").value !== current.q) $("q").value = current.q;
  views[name].render(current);
}

// ---- search --------------------------------------------------------------------

let searchController = null;
let selected = -1;
// How many hits the "more" button has asked for, for the search shown.
let shownLimit = LIMIT;
let shownFor = null;

async function renderSearch(state) {
  document.title = state.q ? `${state.q} · distml-search` : "distml-search";
  const p = params(state);
  if (p.toString() !== shownFor) {
    shownFor = p.toString();
    shownLimit = LIMIT;
  }
  p.set("limit", String(shownLimit));
  // Only the newest request's answer is shown: results follow the keystrokes.
  if (searchController) searchController.abort();
  const controller = new AbortController();
  searchController = controller;
  let data;
  try {
    data = await api("/api/search?" + p.toString(), controller.signal);
  } catch (e) {
    if (controller.signal.aborted) return;
    showStatus(e.message, true);
    $("results").replaceChildren();
    return;
  }
  if (controller !== searchController) return;
  showResults(state, data);
}

function showStatus(text, isError) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", Boolean(isError));
}

function showResults(state, data) {
  const shown = data.hits.length;
  const total = data.total;
  let text = total === 0 ? "No results" : total === 1 ? "1 result" : `${total} results`;
  if (shown < total) text += ` (best ${shown} shown)`;
  for (const note of data.notes || []) text += ` · ${note}`;
  showStatus(text, false);
  showActiveFilters(state);
  showFacets(state, data.facets, data.techniques || []);
  showHistogram(state, data.facets.year || []);
  selected = -1;
  $("results").replaceChildren(...data.hits.map((hit, i) => hitItem(hit, i)));
  const more = $("more");
  more.hidden = shown >= total;
  more.textContent = `Show ${Math.min(LIMIT, total - shown)} more`;
}

// The next hits, below those shown (the server bounds a request's limit).
function showMore() {
  shownLimit += LIMIT;
  renderSearch(current);
}

// A link to an entry's view, opened in place unless asked for elsewhere.
function entryLink(id, text, attrs) {
  const link = el("a", { ...attrs, href: stateUrl({ ...current, entry: id }) }, text);
  link.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    openEntry(id);
  });
  return link;
}

function hitItem(hit, index) {
  const title = entryLink(hit.id, hit.title, { class: "title" });
  const authors = hit.authors.join(", ") + (hit.et_al && hit.authors.length ? " et al." : "");
  const byline = [authors, hit.venue, hit.year, hit.section].filter((v) => v).join(" · ");
  return el(
    "li",
    { class: "hit", "data-id": hit.id, "data-index": String(index) },
    title,
    el("div", { class: "byline" }, byline, ...paperLink(hit.url)),
    hit.snippet ? el("p", { class: "snippet" }, ...highlighted(hit.snippet, hit.highlights || [])) : null,
    el("div", { class: "tags" }, ...hit.tags.map((t) => el("span", { class: "tag" }, t))),
  );
}

// " · paper", linking to the work itself, when its URL is a web page's.
function paperLink(url) {
  const href = safeUrl(url);
  return href ? [" · ", el("a", { class: "paper", href, rel: "noopener noreferrer" }, "paper")] : [];
}

// The snippet as text nodes and <mark>s; highlights are UTF-8 byte ranges.
function highlighted(text, ranges) {
  const bytes = new TextEncoder().encode(text);
  const decode = (from, to) => new TextDecoder().decode(bytes.subarray(from, to));
  const parts = [];
  let at = 0;
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (start < at || end > bytes.length) continue;
    if (start > at) parts.push(decode(at, start));
    parts.push(el("mark", {}, decode(start, end)));
    at = end;
  }
  if (at < bytes.length) parts.push(decode(at, bytes.length));
  return parts;
}

function showActiveFilters(state) {
  const chips = [];
  for (const name of FILTERS) {
    const values = MULTI.includes(name) ? state.filters[name] : state.filters[name] ? [state.filters[name]] : [];
    for (const value of values) {
      chips.push(
        el("button", { class: "chip", type: "button", title: "Remove this filter", onclick: () => setFilter(name, value) }, `${name}: ${value} ×`),
      );
    }
  }
  $("active-filters").replaceChildren(...chips);
}

const expanded = new Set();

// The filters' values with their counts; the tags the query names come
// first, so that "expert parallelism" shows expert-parallelism however
// many works of other tags share its words.
function showFacets(state, facets, techniques) {
  const groups = [];
  for (const name of Object.keys(FACET_NAMES)) {
    let values = facets[name] || [];
    if (name === "tag") {
      const named = techniques.map((t) => values.find((v) => v.value === t)).filter((v) => v);
      values = [...named, ...values.filter((v) => !techniques.includes(v.value))];
    }
    const active = MULTI.includes(name) ? state.filters[name] : [state.filters[name]];
    if (values.length === 0) continue;
    const all = expanded.has(name);
    // A tag counts the works about it and those that only use it; the
    // works about it are a filter of their own.
    const about = new Map(name === "tag" ? (facets.about || []).map((a) => [a.value, a.count]) : []);
    const items = (all ? values : values.slice(0, FACETS_SHOWN)).map(({ value, count }) =>
      el(
        "li",
        { class: name === "tag" ? "tag-facet" : null },
        el(
          "button",
          {
            class: "facet",
            type: "button",
            "data-facet": name,
            "data-value": String(value),
            "aria-pressed": active.includes(String(value)) ? "true" : "false",
            title: name === "tag" ? "About it or using it" : null,
            onclick: () => setFilter(name, String(value)),
          },
          el("span", {}, String(value)),
          el("span", { class: "count" }, String(count)),
        ),
        name === "tag" ? aboutButton(state, String(value), about.get(value) || 0, count) : null,
      ),
    );
    const more =
      values.length > FACETS_SHOWN
        ? el(
            "button",
            {
              class: "more",
              type: "button",
              onclick: () => {
                if (all) expanded.delete(name);
                else expanded.add(name);
                showFacets(state, facets, techniques);
              },
            },
            all ? "fewer" : `all ${values.length}`,
          )
        : null;
    const group = el("details", { "data-facet": name }, el("summary", {}, FACET_NAMES[name]), el("ul", {}, ...items), more);
    group.open = !window.matchMedia("(max-width: 720px)").matches || active.some((a) => a);
    groups.push(group);
  }
  $("filters").replaceChildren(...groups);
}

// "N about": only the works about the tag (their primary tags hold it);
// the others of the tag's count only use it.
function aboutButton(state, value, about, count) {
  if (about === 0) return null;
  const uses = count - about;
  return el(
    "button",
    {
      class: "facet about",
      type: "button",
      "data-facet": "about",
      "data-value": value,
      "aria-pressed": state.filters.about.includes(value) ? "true" : "false",
      title: `${about} about it${uses ? `, ${uses} only use it` : ""}: show only the works about it`,
      onclick: () => setFilter("about", value),
    },
    `${about} about`,
  );
}

// A bar a year from the first to the last, each labelled with its year
// below it (every few years when the bars are too narrow for each).
function showHistogram(state, years) {
  const box = $("histogram");
  const axis = box.nextElementSibling && box.nextElementSibling.classList.contains("axis") ? box.nextElementSibling : null;
  if (axis) axis.remove();
  if (years.length === 0) {
    box.replaceChildren();
    return;
  }
  const counts = new Map(years.map(({ value, count }) => [value, count]));
  const first = years[0].value;
  const last = years[years.length - 1].value;
  const most = Math.max(...years.map((y) => y.count));
  const bars = [];
  const labels = [];
  for (let year = first; year <= last; year++) {
    const count = counts.get(year) || 0;
    const bar = el("button", {
      class: "bar",
      type: "button",
      title: `${year}: ${count}`,
      "aria-label": `${year}: ${count} results`,
      "aria-pressed": state.filters.year === String(year) ? "true" : "false",
      onclick: () => setFilter("year", String(year)),
    });
    bar.style.height = count ? `${Math.max(6, (100 * count) / most)}%` : "1px";
    bars.push(bar);
    labels.push(el("span", { "aria-hidden": "true" }, String(year)));
  }
  box.replaceChildren(...bars);
  const row = el("div", { class: "axis" }, ...labels);
  box.after(row);
  // A label is about 2.5em wide: past what a bar's width holds, every step-th year.
  const slot = bars[0].getBoundingClientRect().width + 2;
  const wide = 2.6 * parseFloat(getComputedStyle(row).fontSize);
  const step = slot > 0 ? Math.max(1, Math.ceil(wide / slot)) : 1;
  labels.forEach((label, i) => {
    if (i % step !== 0) label.textContent = "";
  });
}

// ---- one entry -------------------------------------------------------------------

let entryController = null;

async function renderEntry(state) {
  const view = $("entry-view");
  if (entryController) entryController.abort();
  const controller = new AbortController();
  entryController = controller;
  const id = state.entry;
  let entry;
  try {
    entry = await api("/api/entry/" + encodeURIComponent(id), controller.signal);
  } catch (e) {
    if (controller.signal.aborted) return;
    view.replaceChildren(backButton(), el("p", { class: "error" }, e.message));
    return;
  }
  if (controller !== entryController) return;
  document.title = `${entry.title} · distml-search`;
  const links = [
    ["link", safeUrl(entry.url)],
    ["arXiv", entry.arxiv ? safeUrl(`https://arxiv.org/abs/${entry.arxiv}`) : null],
    ["DOI", entry.doi ? safeUrl(`https://doi.org/${entry.doi}`) : null],
  ].filter(([, url]) => url);
  const meta = [entry.kind, entry.venue, entry.year, entry.section].filter((v) => v).join(" · ");
  const similar = el("ol", { id: "similar" });
  view.replaceChildren(
    backButton(),
    el("h1", { id: "entry-title" }, entry.title),
    el("div", { class: "byline" }, (entry.authors || []).join(", ") + (entry.et_al ? " et al." : "")),
    el("div", { class: "meta" }, meta),
    el("div", { class: "links" }, ...links.map(([label, url]) => el("a", { href: url, rel: "noopener noreferrer" }, label))),
    el("div", { class: "tags" }, ...[...(entry.tags || []), ...(entry.uses || [])].map((t) => el("span", { class: "tag" }, t))),
    entry.note ? section("Note", el("p", {}, entry.note)) : null,
    section("Abstract", el("p", { id: "abstract" }, entry.abstract || "No abstract cached yet.")),
    section("Provenance", provenance(entry)),
    section("BibTeX", bibtexBlock(entry.bibtex)),
    section("Similar works", similar),
  );
  loadSimilar(id, similar, controller);
}

function section(title, ...content) {
  return el("section", {}, el("h2", {}, title), ...content);
}

function backButton() {
  const to = current.view === "inbox" ? "← Inbox" : "← Results";
  return el("button", { class: "back", type: "button", onclick: leaveEntry }, to);
}

function leaveEntry() {
  // Back to where the entry was opened from, or to the search it belongs to.
  if (history.state && history.state.app) history.back();
  else go({ ...current, entry: "" });
}

// Where each field came from: the catalog file, and the sources of the
// metadata cache.
function provenance(entry) {
  const rows = [];
  if (entry.defined_at) rows.push(["defined", entry.defined_at]);
  if (entry.collection && entry.collection !== "catalog") rows.push(["collection", entry.collection]);
  if (entry.abstract_source) rows.push(["abstract", `from ${entry.abstract_source}`]);
  const metadata = entry.metadata || {};
  for (const field of ["arxiv", "doi", "title", "authors", "venue", "published", "updated", "journal_ref"]) {
    const value = metadata[field];
    if (!value || typeof value !== "object") continue;
    const how = [value.source && `from ${value.source}`, value.found_by && `found by ${value.found_by}`,
      typeof value.confidence === "number" && `similarity ${value.confidence.toFixed(2)}`].filter((v) => v);
    rows.push([field, how.join(", ") || "cached"]);
  }
  for (const [source, when] of Object.entries(metadata.fetched_at || {})) rows.push([`fetched from ${source}`, String(when)]);
  if (rows.length === 0) return el("p", { class: "meta" }, "As the list gives it.");
  return el("dl", { class: "provenance" }, ...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
}

function bibtexBlock(bibtex) {
  const text = el("pre", { class: "bibtex", id: "bibtex" }, bibtex || "");
  return el("div", {}, copyButton("Copy BibTeX", bibtex || "", text, { id: "copy-bibtex" }), text);
}

// A button that copies `value`, shown in the element `text`.
function copyButton(label, value, text, attrs) {
  const button = el("button", { ...attrs, class: "copy", type: "button" }, label);
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch (_) {
      // Without clipboard access, select the text for the user to copy.
      const range = document.createRange();
      range.selectNodeContents(text);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      document.execCommand("copy");
    }
    button.textContent = "Copied";
    setTimeout(() => (button.textContent = label), 1500);
  });
  return button;
}

async function loadSimilar(id, list, controller) {
  try {
    const data = await api(`/api/similar/${encodeURIComponent(id)}?limit=8`, controller.signal);
    list.replaceChildren(
      ...data.hits.map((hit) => {
        const link = entryLink(hit.id, hit.title, {});
        return el("li", {}, link, el("span", { class: "meta" }, hit.year ? ` (${hit.year})` : ""));
      }),
    );
    if (data.hits.length === 0) list.replaceChildren(el("li", { class: "meta" }, "None found."));
  } catch (e) {
    if (!controller.signal.aborted) list.replaceChildren(el("li", { class: "error" }, e.message));
  }
}

// ---- the inbox -------------------------------------------------------------------

let inboxController = null;

async function renderInbox(state) {
  document.title = "Inbox · distml-search";
  if ($("since").value !== state.since) $("since").value = state.since;
  const p = new URLSearchParams({ limit: String(INBOX_LIMIT) });
  if (state.since) p.set("since", state.since);
  if (inboxController) inboxController.abort();
  const controller = new AbortController();
  inboxController = controller;
  const status = $("inbox-status");
  let data;
  try {
    data = await api("/api/inbox?" + p.toString(), controller.signal);
  } catch (e) {
    if (controller.signal.aborted) return;
    status.textContent = e.message;
    status.classList.add("error");
    $("candidates").replaceChildren();
    return;
  }
  if (controller !== inboxController) return;
  const shown = data.candidates.length;
  let text = data.total === 0
    ? "No candidates: every record of the arxiv collection is listed or rejected (harvest or import more)"
    : data.total === 1 ? "1 candidate" : `${data.total} candidates`;
  if (shown < data.total) text += ` (best ${shown} shown; distml-search inbox -n ${data.total} lists all)`;
  status.textContent = text;
  status.classList.remove("error");
  selected = -1;
  $("candidates").replaceChildren(...data.candidates.map(candidateItem));
}

function candidateItem(c, index) {
  const id = `arxiv:${c.arxiv}`;
  const byline = [(c.authors || []).join(", "), c.year, c.submitted && `submitted ${c.submitted}`, c.category]
    .filter((v) => v).join(" · ");
  const score = typeof c.score === "number" ? c.score.toFixed(3) : "?";
  const url = safeUrl(c.url);
  const command = `distml-search inbox accept ${shellWord(c.arxiv || "")} --note "…"`;
  const code = el("code", { class: "command" }, command);
  return el(
    "li",
    { class: "hit candidate", "data-id": id, "data-arxiv": c.arxiv || "", "data-index": String(index) },
    entryLink(id, c.title, { class: "title" }),
    el("div", { class: "byline" }, byline),
    el(
      "div",
      { class: "proposal" },
      el("span", { class: "score", title: "How well it belongs in the list, 0 to 1" }, `score ${score}`),
      el("span", { class: "section" }, c.section ? `→ ${c.section}` : "no section proposed"),
      url ? el("a", { href: url, rel: "noopener noreferrer" }, `arXiv ${c.arxiv}`) : null,
    ),
    el("div", { class: "tags" }, ...(c.tags || []).map((t) => el("span", { class: "tag" }, t))),
    (c.why || []).length ? el("div", { class: "why" }, `why: ${c.why.join(", ")}`) : null,
    el("div", { class: "accept" }, copyButton("Copy", command, code, { title: "Copy the command that accepts it" }), code),
  );
}

// `text` as one word of a POSIX shell: bare when it holds only an id's
// characters, else single-quoted (data must not become a command).
function shellWord(text) {
  return /^[A-Za-z0-9._/:-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

function showView(view) {
  typing = false;
  go({ ...current, view: view === "search" ? "" : view, entry: "" });
}

// ---- keys --------------------------------------------------------------------

// The moving selection's items: the shown view's results or candidates.
function listed() {
  return [...document.querySelectorAll(current.view === "inbox" ? "#candidates .hit" : "#results .hit")];
}

function select(index) {
  const hits = listed();
  if (hits.length === 0) return;
  selected = Math.max(0, Math.min(hits.length - 1, index));
  hits.forEach((hit, i) => hit.classList.toggle("selected", i === selected));
  hits[selected].scrollIntoView({ block: "nearest" });
  hits[selected].querySelector(".title").focus({ preventScroll: true });
}

document.addEventListener("keydown", (event) => {
  const inInput = event.target === $("q");
  if (event.key === "Escape") {
    if (current.entry) leaveEntry();
    else if (inInput) $("q").blur();
    return;
  }
  if (current.entry || event.ctrlKey || event.metaKey || event.altKey || event.target === $("since")) return;
  if (event.key === "/" && !inInput) {
    event.preventDefault();
    $("q").focus();
    $("q").select();
  } else if (event.key === "ArrowDown" || (event.key === "j" && !inInput)) {
    event.preventDefault();
    select(selected + 1);
  } else if (event.key === "ArrowUp" || (event.key === "k" && !inInput)) {
    event.preventDefault();
    if (selected <= 0) {
      selected = -1;
      listed().forEach((hit) => hit.classList.remove("selected"));
      $("q").focus();
    } else select(selected - 1);
  } else if (event.key === "Enter" && !inInput && selected >= 0 && !event.target.closest("a, button")) {
    event.preventDefault();
    const hit = listed()[selected];
    if (hit) openEntry(hit.dataset.id);
  }
});

// ---- start -------------------------------------------------------------------

$("q").addEventListener("input", () => {
  const next = { ...current, q: $("q").value, entry: "", view: "", since: "" };
  go(next, typing);
  typing = true;
  clearTimeout(typingTimer);
  typingTimer = setTimeout(() => (typing = false), 1000);
});
$("search-form").addEventListener("submit", (event) => event.preventDefault());
$("more").addEventListener("click", showMore);
for (const link of document.querySelectorAll("#views a")) {
  link.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    showView(link.dataset.view);
  });
}
$("since").addEventListener("change", () => go({ ...current, since: $("since").value, entry: "" }));
window.addEventListener("popstate", () => {
  typing = false;
  current = readState();
  render();
});
render();
if (!current.entry && !current.view) $("q").focus();
