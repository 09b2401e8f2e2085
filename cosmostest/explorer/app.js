// cosmostest Data Explorer. Plain JavaScript, no library. Every value from the server is put on
// the page as text (textContent, Element.append of strings), never as HTML.
'use strict';

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = 'cosmostest-explorer-token';

// el makes an element with attributes and children (strings become text nodes).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k === 'onclick') e.addEventListener('click', v);
    else if (v !== false && v != null) e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

let token = sessionStorage.getItem(TOKEN_KEY) || '';
const state = { db: '', coll: '', pages: [''], page: 0, item: null, queryCont: '', lastQuery: null };

function status(text, isError) {
  const s = $('status');
  s.textContent = text;
  s.className = isError ? 'error' : '';
}

function rus(n) { return (Math.round(n * 100) / 100).toString(); }

// api calls the explorer's JSON endpoints with the control token.
async function api(method, path, body) {
  const opts = { method, headers: { Authorization: 'Bearer ' + token } };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  let r;
  try {
    r = await fetch('api/' + path, opts);
  } catch (e) {
    throw new Error('The server did not answer (' + e.message + ')');
  }
  let data = {};
  try { data = await r.json(); } catch (e) { data = { error: r.status + ' ' + r.statusText }; }
  if (r.status === 401) {
    showLogin('The control token was refused.');
  }
  if (!r.ok) {
    const err = new Error(data.error || (r.status + ' ' + r.statusText));
    err.data = data;
    throw err;
  }
  return data;
}

function describe(err) {
  const d = err.data || {};
  let s = err.message;
  if (d.status) s = d.status + (d.subStatus ? '/' + d.subStatus : '') + ': ' + s;
  if (d.charge) s += ' (' + rus(d.charge) + ' RU)';
  return s;
}

function qs(params) { return new URLSearchParams(params).toString(); }

// ---- login ----

function showLogin(msg) {
  $('app').hidden = true;
  $('login').hidden = false;
  $('login-msg').textContent = msg || '';
  $('token').focus();
}

async function start() {
  if (!token) { showLogin(''); return; }
  try {
    await loadTree();
  } catch (e) {
    if (!$('login').hidden) return;
    status(describe(e), true);
  }
  $('login').hidden = true;
  $('app').hidden = false;
  if (!state.coll) selectTab('tab-controls');
}

$('login-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  token = $('token').value.trim();
  $('token').value = '';
  sessionStorage.setItem(TOKEN_KEY, token);
  start();
});

// ---- tree ----

async function loadTree() {
  const dbs = await api('GET', 'databases');
  const ul = $('dbs');
  ul.replaceChildren();
  if (dbs.length === 0) ul.append(el('li', {}, 'No databases yet.'));
  for (const db of dbs) {
    const inner = el('ul', {});
    for (const c of db.containers) {
      const b = el('button', { type: 'button', class: 'coll', 'data-db': db.id, 'data-coll': c }, c);
      b.addEventListener('click', () => openContainer(db.id, c));
      if (db.id === state.db && c === state.coll) b.setAttribute('aria-current', 'true');
      inner.append(el('li', {}, b));
    }
    ul.append(el('li', {}, el('div', { class: 'db' }, db.id), inner));
  }
  status('Connected. ' + dbs.length + ' database(s).');
}

$('refresh').addEventListener('click', () => loadTree().catch((e) => status(describe(e), true)));

function openContainer(db, coll) {
  state.db = db; state.coll = coll; state.pages = ['']; state.page = 0; state.queryCont = '';
  for (const b of document.querySelectorAll('#dbs button.coll')) {
    const cur = b.dataset.db === db && b.dataset.coll === coll;
    if (cur) b.setAttribute('aria-current', 'true'); else b.removeAttribute('aria-current');
  }
  $('coll-title').textContent = db + ' / ' + coll;
  closeEditor();
  $('query-results').replaceChildren();
  $('feed').replaceChildren();
  selectTab('tab-items');
  $('tab-items').focus();
}

// ---- tabs ----

const tabs = ['tab-props', 'tab-items', 'tab-query', 'tab-feed', 'tab-controls'];
const loaders = {
  'tab-props': loadProps, 'tab-items': loadItems, 'tab-query': () => {}, 'tab-feed': () => {}, 'tab-controls': loadControls,
};

function selectTab(id) {
  for (const t of tabs) {
    const on = t === id;
    $(t).setAttribute('aria-selected', String(on));
    $(t).tabIndex = on ? 0 : -1;
    $($(t).getAttribute('aria-controls')).hidden = !on;
  }
  const needsContainer = id !== 'tab-controls';
  if (needsContainer && !state.coll) {
    status('Choose a container first.', true);
    return;
  }
  Promise.resolve(loaders[id]()).catch((e) => status(describe(e), true));
}

for (const t of tabs) {
  $(t).addEventListener('click', () => selectTab(t));
  $(t).addEventListener('keydown', (ev) => {
    const i = tabs.indexOf(t);
    let j = -1;
    if (ev.key === 'ArrowRight') j = (i + 1) % tabs.length;
    if (ev.key === 'ArrowLeft') j = (i + tabs.length - 1) % tabs.length;
    if (ev.key === 'Home') j = 0;
    if (ev.key === 'End') j = tabs.length - 1;
    if (j >= 0) { ev.preventDefault(); selectTab(tabs[j]); $(tabs[j]).focus(); }
  });
}

// ---- properties ----

function pretty(v) { return JSON.stringify(v, null, 2); }

async function loadProps() {
  const c = await api('GET', 'container?' + qs({ db: state.db, coll: state.coll }));
  const p = c.properties || {};
  const pk = p.partitionKey || {};
  const dl = $('props-summary');
  dl.replaceChildren();
  const add = (k, v) => dl.append(el('dt', {}, k), el('dd', {}, v));
  add('Partition key', (pk.paths || []).join(', ') + ' (' + (pk.kind || '') + ', version ' + (pk.version || 1) + ')');
  const ip = p.indexingPolicy || {};
  add('Indexing', (ip.indexingMode || 'consistent') + '; included ' + (ip.includedPaths || []).map((x) => x.path).join(', ') +
    '; excluded ' + ((ip.excludedPaths || []).map((x) => x.path).join(', ') || 'none'));
  add('Vector policy', p.vectorEmbeddingPolicy ? JSON.stringify(p.vectorEmbeddingPolicy) : 'none');
  add('Full-text policy', p.fullTextPolicy ? JSON.stringify(p.fullTextPolicy) : 'none');
  add('Default TTL', p.defaultTtl === undefined ? 'off' : String(p.defaultTtl));
  let tput = 'none (shared or serverless)';
  if (c.offer) {
    const oc = c.offer.content || {};
    if (oc.offerAutopilotSettings) tput = 'autoscale, max ' + oc.offerAutopilotSettings.maxThroughput + ' RU/s';
    else if (oc.offerThroughput !== undefined) tput = oc.offerThroughput + ' RU/s (manual)';
  }
  add('Throughput', tput);
  add('Storage', c.usage || '');
  const tb = $('ranges').tBodies[0];
  tb.replaceChildren();
  for (const r of c.ranges) {
    const split = el('button', { type: 'button' }, 'Split ' + r.id);
    split.addEventListener('click', async () => {
      try {
        await api('POST', 'split', { db: state.db, coll: state.coll, range: r.id });
        status('Range ' + r.id + ' split.');
        await loadProps();
      } catch (e) { status(describe(e), true); }
    });
    tb.append(el('tr', {}, el('td', {}, r.id), el('td', {}, el('code', {}, r.minInclusive || '""')),
      el('td', {}, el('code', {}, r.maxExclusive)), el('td', { class: 'num' }, String(r.documentCount)),
      el('td', { class: 'num' }, String(r.sizeInKB)), el('td', {}, split)));
  }
  $('props-json').textContent = pretty(p);
  $('offer-json').textContent = c.offer ? pretty(c.offer) : 'No offer of its own.';
  status('Container read: ' + rus(c.charge) + ' RU.');
}

// ---- items ----

async function loadItems() {
  const cont = state.pages[state.page];
  const page = await api('GET', 'items?' + qs({ db: state.db, coll: state.coll, continuation: cont }));
  const tb = $('items').tBodies[0];
  tb.replaceChildren();
  if (page.items.length === 0) tb.append(el('tr', {}, el('td', { colspan: 4 }, 'No items on this page.')));
  for (const it of page.items) {
    const open = el('button', { type: 'button', class: 'open', 'data-id': it.id }, it.id === '' ? '(empty id)' : it.id);
    open.addEventListener('click', () => openItem(it));
    tb.append(el('tr', {}, el('td', {}, open), el('td', {}, el('code', {}, it.pk)), el('td', {}, el('code', {}, it.etag)),
      el('td', { class: 'num' }, String(it.ts))));
  }
  state.pages.length = state.page + 1;
  if (page.continuation) state.pages.push(page.continuation);
  $('items-prev').disabled = state.page === 0;
  $('items-next').disabled = !page.continuation;
  $('items-info').textContent = 'Page ' + (state.page + 1) + ', ' + page.items.length + ' item(s), ' + rus(page.charge) + ' RU';
}

$('items-prev').addEventListener('click', () => {
  if (state.page > 0) { state.page--; loadItems().catch((e) => status(describe(e), true)); }
});
$('items-next').addEventListener('click', () => {
  if (state.page + 1 < state.pages.length) { state.page++; loadItems().catch((e) => status(describe(e), true)); }
});

function openItem(it) {
  state.item = it;
  $('editor').hidden = false;
  $('editor-title').textContent = it ? 'Item ' + it.id : 'New item';
  $('etag').textContent = it ? it.etag : '';
  $('item-text').value = it ? it.text : '{\n  "id": ""\n}';
  $('delete').hidden = !it;
  $('delete-confirm').hidden = true;
  editorMsg('', false);
  $('item-text').focus();
}

function closeEditor() {
  state.item = null;
  $('editor').hidden = true;
}

function editorMsg(text, isError) {
  const m = $('editor-msg');
  m.textContent = text;
  m.className = isError ? 'error' : 'ok';
}

$('item-new').addEventListener('click', () => openItem(null));
$('editor').addEventListener('keydown', (ev) => {
  if (ev.key === 'Escape') { ev.preventDefault(); closeEditor(); $('items-next').focus(); }
});
$('editor-close').addEventListener('click', () => { closeEditor(); $('items-next').focus(); });

$('save').addEventListener('click', async () => {
  const it = state.item;
  const body = { db: state.db, coll: state.coll, text: $('item-text').value };
  try {
    let res;
    if (it) res = await api('PUT', 'item', Object.assign(body, { id: it.id, pk: it.pk, etag: it.etag }));
    else res = await api('POST', 'item', body);
    openItem(res.item);
    editorMsg((it ? 'Replaced' : 'Created') + ' (' + res.status + '), ' + rus(res.charge) + ' RU. New ETag ' + res.item.etag + '.', false);
    await loadItems();
  } catch (e) {
    const d = e.data || {};
    editorMsg(d.status === 412 ? 'Not saved: the item changed since it was read (412). Reopen it from the list.' : 'Not saved: ' + describe(e), true);
  }
});

$('delete').addEventListener('click', () => { $('delete-confirm').hidden = false; $('delete-confirm').focus(); });
$('delete-confirm').addEventListener('click', async () => {
  const it = state.item;
  try {
    const res = await api('DELETE', 'item?' + qs({ db: state.db, coll: state.coll, id: it.id, pk: it.pk, etag: it.etag }));
    closeEditor();
    status('Deleted ' + it.id + ', ' + rus(res.charge) + ' RU.');
    await loadItems();
  } catch (e) {
    editorMsg('Not deleted: ' + describe(e), true);
  }
});

// ---- query ----

async function runQuery(continuation) {
  const msg = $('query-msg');
  msg.textContent = '';
  let params = [];
  const raw = $('query-params').value.trim();
  if (raw) {
    try {
      params = Object.entries(JSON.parse(raw)).map(([name, value]) => ({ name, value }));
    } catch (e) {
      msg.textContent = 'Parameters: not a JSON object.';
      return;
    }
  }
  const req = {
    db: state.db, coll: state.coll, query: $('query').value, parameters: params,
    partitionKey: $('query-pk').value, pageSize: Number($('query-size').value) || 0, continuation,
  };
  let res;
  try {
    res = await api('POST', 'query', req);
  } catch (e) {
    msg.textContent = describe(e);
    if ((e.data || {}).subStatus === 1004) {
      msg.textContent += ' The gateway does not run this query across partitions (azcosmos v1.5.0 gets the same answer): give a partition key.';
    }
    msg.className = 'error';
    return;
  }
  state.queryCont = res.continuation || '';
  $('query-next').disabled = !state.queryCont;
  $('query-charge').textContent = rus(res.charge);
  $('query-count').textContent = String(res.documents.length) + (res.continuation ? ' (more on the next page)' : '');
  $('query-ranges').textContent = res.ranges.length ? res.ranges.join(', ') : 'none';
  $('plan-charge').textContent = res.plan.error ? 'no plan: ' + res.plan.error : rus(res.plan.charge) + ' RU';
  const mt = $('query-metrics').tBodies[0];
  mt.replaceChildren();
  for (const m of res.metrics) mt.append(el('tr', {}, el('th', { scope: 'row' }, m.name), el('td', { class: 'num' }, m.value)));
  if (res.indexMetrics) mt.append(el('tr', {}, el('th', { scope: 'row' }, 'index utilization'), el('td', {}, res.indexMetrics)));
  $('query-plan').textContent = res.plan.queryInfo ? pretty({ queryInfo: res.plan.queryInfo, queryRanges: res.plan.queryRanges }) : (res.plan.error || '');
  const out = $('query-results');
  out.replaceChildren();
  res.documents.forEach((d) => out.append(el('pre', { class: 'row' }, d)));
  status('Query: ' + res.documents.length + ' row(s), ' + rus(res.charge) + ' RU.');
}

$('run').addEventListener('click', () => runQuery(''));
$('query-next').addEventListener('click', () => runQuery(state.queryCont));
$('query').addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); runQuery(''); }
});

// ---- change feed ----

$('feed-read').addEventListener('click', async () => {
  try {
    const res = await api('GET', 'changefeed?' + qs({ db: state.db, coll: state.coll }));
    const out = $('feed');
    out.replaceChildren();
    let total = 0;
    for (const r of res.ranges) {
      total += r.charge;
      const tb = el('tbody', {});
      for (const c of r.changes) {
        tb.append(el('tr', {}, el('td', { class: 'num' }, String(c.lsn)), el('td', {}, c.id), el('td', {}, el('code', {}, c.pk)),
          el('td', {}, el('code', {}, c.etag)), el('td', { class: 'num' }, String(c.ts))));
      }
      if (r.changes.length === 0) tb.append(el('tr', {}, el('td', { colspan: 5 }, 'No changes.')));
      out.append(el('h3', {}, 'Range ' + r.id + (r.more ? ' (first ' + r.changes.length + ' changes)' : '')),
        el('div', { class: 'scroll' }, el('table', { class: 'feed' },
          el('thead', {}, el('tr', {}, ...['_lsn', 'id', 'Partition key', '_etag', '_ts'].map((h) => el('th', { scope: 'col' }, h)))), tb)));
    }
    $('feed-info').textContent = res.ranges.length + ' range(s), ' + rus(total) + ' RU';
  } catch (e) { status(describe(e), true); }
});

// ---- server controls ----

function ruleText(r) {
  return Object.entries(r).map(([k, v]) => k + '=' + (typeof v === 'string' ? JSON.stringify(v) : String(v))).join(' ');
}

async function loadControls() {
  const c = await api('GET', 'controls');
  const sel = $('fault-op');
  if (sel.options.length === 1) for (const op of c.operations) sel.append(el('option', { value: op }, op));
  const tb = $('faults').tBodies[0];
  tb.replaceChildren();
  if (c.faults.length === 0) tb.append(el('tr', {}, el('td', { colspan: 4 }, 'No faults installed.')));
  for (const f of c.faults) {
    const rm = el('button', { type: 'button' }, 'Remove ' + f.id);
    rm.addEventListener('click', async () => {
      try { await api('DELETE', 'faults/' + encodeURIComponent(f.id)); await loadControls(); } catch (e) { status(describe(e), true); }
    });
    tb.append(el('tr', { 'data-fault': f.id }, el('td', {}, f.id), el('td', {}, el('code', {}, ruleText(f.rule))),
      el('td', { class: 'num' }, String(f.hits) + (f.done ? ' (done)' : '')), el('td', {}, rm)));
  }
  const rt = $('regions').tBodies[0];
  rt.replaceChildren();
  for (const r of c.regions) {
    const toggle = el('button', { type: 'button' }, r.down ? 'Bring up' : 'Take down');
    toggle.addEventListener('click', () => control('region', { name: r.name, down: !r.down }));
    const fo = el('button', { type: 'button', disabled: r.write && !c.multiWrite ? true : false }, 'Make write region');
    fo.addEventListener('click', () => control('failover', { region: r.name }));
    const lag = el('input', { value: r.lag, size: 6, 'aria-label': 'Replication lag of ' + r.name });
    const setLag = el('button', { type: 'button' }, 'Set lag');
    setLag.addEventListener('click', () => control('lag', { region: r.name, lag: lag.value.trim() }));
    rt.append(el('tr', {}, el('td', {}, r.name), el('td', {}, el('code', {}, r.endpoint)), el('td', {}, r.write ? 'yes' : 'no'),
      el('td', {}, r.down ? 'down' : 'up'), el('td', {}, lag, ' ', setLag), el('td', {}, toggle, ' ', fo)));
  }
  $('tput').checked = c.throughputLimits;
  $('count-requests').textContent = String(c.requests);
  $('count-throttled').textContent = String(c.throttled);
}

async function control(path, body) {
  try {
    await api('POST', path, body);
    status('Done: ' + path + '.');
    await loadControls();
  } catch (e) { status(describe(e), true); }
}

$('tput').addEventListener('change', () => control('throughput-limits', { enabled: $('tput').checked }));

$('fault-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const n = (id) => Number($(id).value) || 0;
  const rule = {
    operation: $('fault-op').value, status: n('fault-status'), subStatus: n('fault-substatus'),
    retryAfterMs: n('fault-retry'), delayMs: n('fault-delay'), times: n('fault-times'),
    database: $('fault-db').value.trim(), container: $('fault-coll').value.trim(),
    region: $('fault-region').value.trim(), partitionKeyRangeId: $('fault-range').value.trim(),
  };
  for (const k of Object.keys(rule)) if (rule[k] === '' || rule[k] === 0) delete rule[k];
  try {
    const res = await api('POST', 'faults', rule);
    status('Fault ' + res.id + ' installed.');
    await loadControls();
  } catch (e) { status(describe(e), true); }
});

$('fault-clear').addEventListener('click', async () => {
  try { await api('DELETE', 'faults'); status('Every fault removed.'); await loadControls(); } catch (e) { status(describe(e), true); }
});

// ---- start ----

if (location.hash.startsWith('#token=')) {
  token = decodeURIComponent(location.hash.slice('#token='.length));
  sessionStorage.setItem(TOKEN_KEY, token);
  history.replaceState(null, '', location.pathname + location.search);
}
start();
