// taicam label: the page. Keyboard first; every change is saved at once (PUT /api/images/N).
// Tiles are edited as oriented rectangles (centre, face width/height, angle of the face's "up");
// a tile whose geometry was never touched is saved back with its original box/quad unchanged.
"use strict";

const $ = (id) => document.getElementById(id);
const canvas = $("canvas");
const ctx = canvas.getContext("2d");
const HANDLE = 7; // px on screen
const GROUP_COLOURS = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
  "#bcf60c", "#008080", "#9a6324", "#800000", "#808000", "#000075"];
const ROLE_MARK = { meld: "M", concealed_kong: "K", concealed: "H", flower: "F", winning: "★", distractor: "×" };

const S = {
  meta: null, images: [], index: -1, photo: null, width: 0, height: 0,
  tiles: [], sel: new Set(), primary: -1, typing: null, context: {}, reviewed: false,
  revision: 0, labelled: false, source: "", view: "label",
  saving: false, pending: false, flushWaiters: [], drag: null, hover: -1,
  scale: 1, ox: 0, oy: 0, zoomed: false,
};

// ------------------------------------------------------------------ server
async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.headers["X-Taicam-Label"] = "1";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = { error: response.statusText }; }
  if (!response.ok) {
    const error = new Error(data && data.error ? data.error : response.statusText);
    error.status = response.status;
    throw error;
  }
  return data;
}

function status(text, kind) {
  const el = $("status");
  el.textContent = text;
  el.className = kind || "";
}

// ------------------------------------------------------------------ geometry
const rad = (deg) => (deg * Math.PI) / 180;

function corners(t) {
  const c = Math.cos(rad(t.angle)), s = Math.sin(rad(t.angle));
  return [[-t.w / 2, -t.h / 2], [t.w / 2, -t.h / 2], [t.w / 2, t.h / 2], [-t.w / 2, t.h / 2]]
    .map(([x, y]) => [t.cx + x * c - y * s, t.cy + x * s + y * c]);
}

function toLocal(t, x, y) {
  const c = Math.cos(rad(t.angle)), s = Math.sin(rad(t.angle));
  const dx = x - t.cx, dy = y - t.cy;
  return [dx * c + dy * s, -dx * s + dy * c];
}

function outline(t) { return !t.geomDirty && t.origQuad ? t.origQuad : corners(t); }

function bounds(points) {
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

const round1 = (v) => Math.round(v * 10) / 10;
const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));

// ------------------------------------------------------------------ tiles <-> JSON
const KNOWN_KEYS = ["code", "box", "quad", "rotated", "face_down", "group", "role", "candidates", "score"];

function tileFromJson(o) {
  const t = {
    code: o.code, rotated: !!o.rotated, face_down: !!o.face_down,
    group: o.group === undefined ? null : o.group, role: o.role === undefined ? null : o.role,
    candidates: o.candidates || [], extra: {}, geomDirty: false, touched: false,
    origBox: o.box, origQuad: o.quad || null, prevCode: null,
  };
  for (const [k, v] of Object.entries(o)) if (!KNOWN_KEYS.includes(k)) t.extra[k] = v;
  if (o.quad) {
    const q = o.quad;
    t.cx = q.reduce((a, p) => a + p[0], 0) / 4;
    t.cy = q.reduce((a, p) => a + p[1], 0) / 4;
    t.w = Math.hypot(q[1][0] - q[0][0], q[1][1] - q[0][1]);
    t.h = Math.hypot(q[3][0] - q[0][0], q[3][1] - q[0][1]);
    t.angle = (Math.atan2(q[1][1] - q[0][1], q[1][0] - q[0][0]) * 180) / Math.PI;
  } else {
    const [x1, y1, x2, y2] = o.box;
    t.cx = (x1 + x2) / 2; t.cy = (y1 + y2) / 2;
    if (t.rotated) { t.angle = 90; t.w = y2 - y1; t.h = x2 - x1; } else { t.angle = 0; t.w = x2 - x1; t.h = y2 - y1; }
  }
  return t;
}

function tileToJson(t) {
  const o = { ...t.extra, code: t.code };
  if (!t.geomDirty) {
    o.box = t.origBox;
    if (t.origQuad) o.quad = t.origQuad;
  } else {
    const q = corners(t);
    const [x1, y1, x2, y2] = bounds(q);
    o.box = [round1(clamp(x1, 0, S.width)), round1(clamp(y1, 0, S.height)),
      round1(clamp(x2, 0, S.width)), round1(clamp(y2, 0, S.height))];
    const upright = Math.abs(((t.angle % 360) + 360) % 360) < 0.01;
    if (!upright) o.quad = q.map(([x, y]) => [round1(x), round1(y)]);
  }
  if (t.rotated) o.rotated = true;
  if (t.face_down) o.face_down = true;
  if (t.group !== null) o.group = t.group;
  if (t.role !== null) o.role = t.role;
  return o;
}

function isLow(t) {
  // A tile a person has decided (since the page loaded, or by marking the photo reviewed) is not flagged.
  if (t.touched || S.reviewed) return false;
  if (t.code === "unknown") return true;
  return t.candidates.length > 0 && t.candidates[0][1] < S.meta.low_confidence;
}

// ------------------------------------------------------------------ saving
function changed() {
  draw();
  renderStrip();
  renderPanel();
  scheduleSave();
}

function scheduleSave() {
  if (!S.photo) return; // nothing to label on a photo that did not load
  if (S.saving) { S.pending = true; return; }
  saveNow();
}

async function saveNow() {
  S.saving = true; S.pending = false;
  let stale = false;
  const index = S.index;
  status("saving…", "saving");
  const body = { revision: S.revision, tiles: S.tiles.map(tileToJson), reviewed: S.reviewed, context: S.context };
  try {
    const state = await api("PUT", `/api/images/${index}`, body);
    if (index === S.index) {
      S.revision = state.revision; S.labelled = true; S.hand = state.hand; S.warnings = state.warnings;
      S.check = state.check;
      S.canUndo = state.can_undo; S.canRedo = state.can_redo;
    }
    const row = S.images[index];
    row.labelled = true; row.reviewed = state.reviewed; row.tiles = state.tiles.length;
    renderImageList();
    renderHand();
    status(`saved (revision ${state.revision})`);
  } catch (error) {
    status(`not saved: ${error.message}`, "error");
    stale = error.status === 409 && index === S.index;
  } finally {
    S.saving = false;
    if (stale) S.pending = false; // edited elsewhere meanwhile: take the saved version, below
    if (S.pending) saveNow();
    else { const waiters = S.flushWaiters; S.flushWaiters = []; waiters.forEach((w) => w()); }
  }
  if (stale) {
    await loadImage(index, true);
    status("this photo was changed in another window: showing the saved labels; redo your last change", "error");
  }
}

function flush() {
  if (!S.saving && !S.pending) return Promise.resolve();
  return new Promise((resolve) => S.flushWaiters.push(resolve));
}

// ------------------------------------------------------------------ loading
async function loadImage(index, keepSelection) {
  await flush();
  const state = await api("GET", `/api/images/${index}`);
  const photo = new Image();
  photo.src = `/api/images/${index}/file`;
  await photo.decode().catch(() => { throw new Error(`the browser cannot decode ${state.image}`); });
  S.index = index; S.photo = photo; S.width = state.width; S.height = state.height;
  applyState(state);
  if (!keepSelection) { S.sel.clear(); S.primary = -1; }
  S.typing = null;
  const stayZoomed = S.zoomed && !keepSelection; // zoomed on the last photo: zoom on this one's tiles
  if (!keepSelection) S.zoomed = false;
  renderImageList(); renderContextForm(); resize(); renderStrip(); renderPanel();
  if (stayZoomed && S.tiles.length) zoomTo(bounds(S.tiles.flatMap(outline)));
  $("position").textContent = `${index + 1} / ${S.images.length}`;
  $("image-name").textContent = state.image;
  status(state.labelled ? `labels (revision ${state.revision})` : "proposals: not saved until you change or accept (v)");
  if (index + 1 < S.images.length) new Image().src = `/api/images/${index + 1}/file`; // preload
}

function applyState(state) {
  S.tiles = state.tiles.map(tileFromJson);
  S.context = { ...state.context };
  S.reviewed = state.reviewed; S.revision = state.revision; S.labelled = state.labelled;
  S.source = state.source; S.hand = state.hand; S.warnings = state.warnings; S.check = state.check;
  S.canUndo = state.can_undo; S.canRedo = state.can_redo;
  $("source").textContent = `tiles from: ${state.source}`;
  $("reviewed-flag").textContent = state.reviewed ? "✓ reviewed" : "";
  S.sel = new Set([...S.sel].filter((i) => i < S.tiles.length));
  if (S.primary >= S.tiles.length) S.primary = -1;
}

async function go(index) {
  if (index < 0 || index >= S.images.length) { status(index < 0 ? "first image" : "last image"); return; }
  try {
    await loadImage(index, false);
  } catch (error) {
    // A photo the server cannot read: show why, and let n / p carry on past it.
    S.index = index; S.photo = null; S.tiles = []; S.sel.clear(); S.primary = -1; S.width = 0;
    $("position").textContent = `${index + 1} / ${S.images.length}`;
    $("image-name").textContent = S.images[index].image;
    renderImageList(); draw(); renderStrip(); renderPanel();
    status(`cannot open this photo: ${error.message}`, "error");
  }
}

// ------------------------------------------------------------------ drawing
function resize() {
  const rect = canvas.getBoundingClientRect();
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.max(1, Math.round(rect.width * ratio));
  canvas.height = Math.max(1, Math.round(rect.height * ratio));
  if (!S.zoomed) fit(); else draw();
}

function fit() {
  if (S.width) {
    S.scale = Math.min(canvas.width / S.width, canvas.height / S.height);
    S.ox = (canvas.width - S.width * S.scale) / 2;
    S.oy = (canvas.height - S.height * S.scale) / 2;
  }
  S.zoomed = false;
  draw();
}

function zoomTo([x1, y1, x2, y2]) {
  // Small tiles in a 640-pixel photo need a closer look: frame the box with some context.
  const margin = 0.3 * Math.max(x2 - x1, y2 - y1) + 12;
  x1 = Math.max(0, x1 - margin); y1 = Math.max(0, y1 - margin);
  x2 = Math.min(S.width, x2 + margin); y2 = Math.min(S.height, y2 + margin);
  S.scale = Math.min(canvas.width / (x2 - x1), canvas.height / (y2 - y1), 12 * (window.devicePixelRatio || 1));
  S.ox = canvas.width / 2 - ((x1 + x2) / 2) * S.scale;
  S.oy = canvas.height / 2 - ((y1 + y2) / 2) * S.scale;
  S.zoomed = true;
  draw();
}

function toggleZoom() {
  if (S.zoomed) { fit(); return; }
  const tiles = S.sel.size ? selectedTiles() : S.tiles;
  zoomTo(tiles.length ? bounds(tiles.flatMap(outline)) : [0, 0, S.width, S.height]);
}

function zoomAt(factor, [sx, sy]) {
  const x = (sx - S.ox) / S.scale, y = (sy - S.oy) / S.scale;
  S.scale = clamp(S.scale * factor, 0.05, 40);
  S.ox = sx - x * S.scale; S.oy = sy - y * S.scale;
  S.zoomed = true;
  draw();
}

function ensureVisible(t) {
  if (!S.zoomed || !t) return;
  const [x1, y1, x2, y2] = bounds(outline(t).map(toScreen));
  if (x1 >= 0 && y1 >= 0 && x2 <= canvas.width && y2 <= canvas.height) return;
  S.ox += canvas.width / 2 - (x1 + x2) / 2;
  S.oy += canvas.height / 2 - (y1 + y2) / 2;
}

const toScreen = ([x, y]) => [S.ox + x * S.scale, S.oy + y * S.scale];

function screenToImage(event) {
  const rect = canvas.getBoundingClientRect();
  const ratio = canvas.width / rect.width;
  return [((event.clientX - rect.left) * ratio - S.ox) / S.scale, ((event.clientY - rect.top) * ratio - S.oy) / S.scale];
}

function draw() {
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (!S.photo) return;
  ctx.drawImage(S.photo, S.ox, S.oy, S.width * S.scale, S.height * S.scale);
  const ratio = window.devicePixelRatio || 1;
  S.tiles.forEach((t, i) => drawTile(t, i, ratio));
  if (S.drag && (S.drag.kind === "new" || S.drag.kind === "band")) {
    const [x1, y1] = toScreen(S.drag.start), [x2, y2] = toScreen(S.drag.now);
    ctx.setLineDash([6, 4]); ctx.strokeStyle = "#fff"; ctx.lineWidth = 1.5 * ratio;
    ctx.strokeRect(x1, y1, x2 - x1, y2 - y1); ctx.setLineDash([]);
  }
}

function drawTile(t, i, ratio) {
  const points = outline(t).map(toScreen);
  const selected = S.sel.has(i);
  const low = isLow(t);
  ctx.beginPath();
  points.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
  ctx.closePath();
  if (t.group !== null) {
    ctx.fillStyle = GROUP_COLOURS[t.group % GROUP_COLOURS.length] + "44";
    ctx.fill();
  }
  if (low) { ctx.fillStyle = "rgba(255,152,0,0.28)"; ctx.fill(); }
  ctx.lineWidth = (selected ? 3 : 1.6) * ratio;
  ctx.strokeStyle = selected ? "#00e5ff" : t.role === "winning" ? "#ffd600" : low ? "#ff9800"
    : t.code === "unknown" ? "#ff1744" : "#76ff03";
  ctx.setLineDash(low && !selected ? [5 * ratio, 3 * ratio] : []);
  ctx.stroke();
  ctx.setLineDash([]);
  // Top edge of the face: a short tick shows which way the tile reads.
  const [a, b] = [points[0], points[1]];
  ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]);
  ctx.lineWidth = (selected ? 4 : 2.5) * ratio; ctx.strokeStyle = selected ? "#00e5ff" : "#ffffffcc"; ctx.stroke();
  let label = t.code === "unknown" ? "?" : t.code;
  if (t.role) label += " " + ROLE_MARK[t.role];
  if (t.group !== null) label += ` g${t.group}`;
  if (t.rotated) label += " ↻";
  const [x1, y1] = bounds(points);
  ctx.font = `${Math.round(12 * ratio)}px monospace`;
  const width = ctx.measureText(label).width + 6 * ratio;
  ctx.fillStyle = selected ? "#00e5ff" : low ? "#ff9800" : "rgba(0,0,0,0.7)";
  ctx.fillRect(x1, y1 - 16 * ratio, width, 15 * ratio);
  ctx.fillStyle = selected || low ? "#000" : "#fff";
  ctx.fillText(label, x1 + 3 * ratio, y1 - 4 * ratio);
  if (selected && i === S.primary) drawHandles(t, ratio);
}

function handlePoints(t) {
  const cs = corners(t);
  const c = Math.cos(rad(t.angle)), s = Math.sin(rad(t.angle));
  const knobDistance = t.h / 2 + 22 / S.scale;
  const knob = [t.cx + knobDistance * s, t.cy - knobDistance * c];
  return { corners: cs, knob };
}

function drawHandles(t, ratio) {
  const { corners: cs, knob } = handlePoints(t);
  ctx.fillStyle = "#00e5ff";
  for (const p of cs) { const [x, y] = toScreen(p); ctx.fillRect(x - HANDLE * ratio / 2, y - HANDLE * ratio / 2, HANDLE * ratio, HANDLE * ratio); }
  const [kx, ky] = toScreen(knob);
  const top = toScreen([(cs[0][0] + cs[1][0]) / 2, (cs[0][1] + cs[1][1]) / 2]);
  ctx.beginPath(); ctx.moveTo(top[0], top[1]); ctx.lineTo(kx, ky); ctx.lineWidth = 1.5 * ratio; ctx.strokeStyle = "#00e5ff"; ctx.stroke();
  ctx.beginPath(); ctx.arc(kx, ky, HANDLE * ratio / 1.5, 0, 2 * Math.PI); ctx.fill();
}

// ------------------------------------------------------------------ tile strip
// Every tile of the photo cut out upright (as its face reads) and enlarged, in reading order:
// small tiles are read here, and a wrong code stands out next to its neighbours.
const STRIP_HEIGHT = 76;

function cutTile(t) {
  const ratio = t.w / t.h;
  const height = STRIP_HEIGHT, width = Math.max(20, Math.min(120, Math.round(height * ratio)));
  const cut = document.createElement("canvas");
  cut.width = width; cut.height = height;
  const g = cut.getContext("2d");
  g.translate(width / 2, height / 2);
  g.scale(width / t.w, height / t.h);
  g.rotate(-rad(t.angle));
  g.translate(-t.cx, -t.cy);
  g.drawImage(S.photo, 0, 0, S.width, S.height);
  return cut;
}

function renderStrip() {
  const strip = $("strip");
  strip.textContent = "";
  if (!S.photo) return;
  for (const i of readingOrder()) {
    const t = S.tiles[i];
    const figure = document.createElement("figure");
    figure.dataset.tile = String(i);
    figure.className = (S.sel.has(i) ? "selected " : "") + (isLow(t) ? "low" : "");
    const caption = document.createElement("figcaption");
    caption.textContent = t.code === "unknown" ? "?" : t.code;
    figure.append(cutTile(t), caption);
    figure.addEventListener("click", (event) => {
      if (event.shiftKey) { S.sel.add(i); S.primary = i; draw(); renderPanel(); } else selectOnly(i);
    });
    strip.appendChild(figure);
  }
}

function markStrip() {
  for (const figure of $("strip").children) {
    const i = Number(figure.dataset.tile), t = S.tiles[i];
    if (!t) continue;
    figure.className = (S.sel.has(i) ? "selected " : "") + (isLow(t) ? "low" : "");
    figure.lastChild.textContent = t.code === "unknown" ? "?" : t.code;
    if (i === S.primary) figure.scrollIntoView({ block: "nearest", inline: "nearest" });
  }
}

// ------------------------------------------------------------------ panel
function renderImageList() {
  const list = $("image-list");
  if (list.children.length !== S.images.length) {
    list.textContent = "";
    S.images.forEach((row, i) => {
      const div = document.createElement("div");
      div.textContent = `${i + 1}. ${row.image}`;
      div.title = row.image;
      div.addEventListener("click", () => go(i));
      list.appendChild(div);
    });
  }
  S.images.forEach((row, i) => {
    const div = list.children[i];
    div.className = (i === S.index ? "current " : "") + (row.reviewed ? "reviewed" : "");
  });
  const current = list.children[S.index];
  if (current) current.scrollIntoView({ block: "nearest" });
}

function renderPanel() {
  markStrip();
  const info = $("tile-info"), chips = $("candidates");
  chips.textContent = "";
  $("typing").hidden = S.typing === null;
  $("typing").textContent = S.typing === null ? "" : `code: ${S.typing}▌`;
  const low = S.tiles.filter(isLow).length;
  if (S.primary < 0 || !S.sel.has(S.primary)) {
    info.textContent = `${S.tiles.length} tiles, ${low} low-confidence` + (S.sel.size ? `, ${S.sel.size} selected` : "");
    return;
  }
  const t = S.tiles[S.primary];
  const name = S.meta.names[t.code] || "not identified";
  const flags = [t.rotated && "sideways", t.face_down && "face-down", t.role, t.group !== null && `group ${t.group}`]
    .filter(Boolean).join(", ");
  info.innerHTML = "";
  const code = document.createElement("span"); code.className = "code"; code.textContent = t.code === "unknown" ? "?" : t.code;
  info.append(code, ` ${name}`, document.createElement("br"),
    `tile ${readingOrder().indexOf(S.primary) + 1} of ${S.tiles.length} (left to right)${S.sel.size > 1 ? ` (${S.sel.size} selected)` : ""}${flags ? " · " + flags : ""}`);
  if (t.candidates.length && t.candidates[0][0] !== t.code) {
    const note = document.createElement("div");
    note.className = "disagree";
    note.textContent = `the model reads ${t.candidates[0][0]} (${(t.candidates[0][1] * 100).toFixed(0)}%)`;
    info.appendChild(note);
  }
  t.candidates.forEach(([c, p], k) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = `${k + 1}: ${c} ${(p * 100).toFixed(0)}%`;
    button.title = `alt+${k + 1}`;
    if (c === t.code) button.className = "chosen";
    button.addEventListener("click", () => setCode(c));
    chips.appendChild(button);
  });
}

function renderHand() {
  const h = S.hand;
  $("hand-summary").textContent = !h ? "(no hand described: group sets, mark the winning tile, or fill the context)"
    : [`concealed: ${h.concealed.join(" ") || "–"}`,
      ...h.melds.map((m) => `${m.concealed ? "concealed " : ""}${m.kind}: ${m.tiles.join(" ")}`),
      `flowers: ${h.flowers.join(" ") || "–"}`, `winning: ${h.winning_tile || "–"}`].join("\n");
  $("hand-check").textContent = S.check || "";
  $("hand-check").className = S.check && !S.check.startsWith("scores") ? "error" : "";
  const list = $("warnings");
  list.textContent = "";
  for (const w of S.warnings || []) { const li = document.createElement("li"); li.textContent = w; list.appendChild(li); }
}

function renderContextForm() {
  const form = $("context-form");
  form.textContent = "";
  for (const [key, kind] of Object.entries(S.meta.context_fields)) {
    const label = document.createElement("label");
    label.textContent = key.replace(/_/g, " ");
    label.htmlFor = `ctx-${key}`;
    let input;
    if (kind === "bool") {
      input = document.createElement("input"); input.type = "checkbox"; input.checked = S.context[key] === true;
    } else if (kind === "wind") {
      input = document.createElement("select");
      const options = [["", "–"], ["1z", "East"], ["2z", "South"], ["3z", "West"], ["4z", "North"]];
      for (const [value, text] of options) { const o = document.createElement("option"); o.value = value; o.textContent = text; input.appendChild(o); }
      input.value = S.context[key] === undefined ? "" : String(S.context[key]);
    } else {
      input = document.createElement("input"); input.type = "number"; input.min = "0"; input.max = "200";
      input.value = S.context[key] === undefined ? "" : String(S.context[key]);
    }
    input.id = `ctx-${key}`; input.name = key;
    input.addEventListener("change", () => {
      let value;
      if (kind === "bool") value = input.checked ? true : undefined;
      else if (kind === "wind") value = input.value || undefined;
      else value = input.value === "" ? undefined : parseInt(input.value, 10);
      if (value === undefined || Number.isNaN(value)) delete S.context[key]; else S.context[key] = value;
      changed();
    });
    form.append(label, input);
  }
  renderHand();
}

// ------------------------------------------------------------------ edits
function selectOnly(i) {
  S.sel = new Set(i >= 0 ? [i] : []);
  S.primary = i;
  if (i >= 0) ensureVisible(S.tiles[i]);
  draw(); renderPanel();
}

function selectedTiles() { return [...S.sel].map((i) => S.tiles[i]); }

function setCode(code, tiles) {
  tiles = tiles || selectedTiles();
  if (!tiles.length) { status("select a tile first", "error"); return; }
  for (const t of tiles) {
    if (code === "back") { if (t.code !== "back") t.prevCode = t.code; t.face_down = true; }
    else t.face_down = false;
    t.code = code; t.touched = true;
  }
  changed();
}

function resolveCode(text) {
  const key = text.trim();
  return S.meta.aliases[key] || S.meta.aliases[key.toLowerCase()] || null;
}

function applyTyped(text) {
  const code = resolveCode(text);
  if (!code) { $("code-error").textContent = `unknown code "${text}"`; status(`unknown code "${text}"`, "error"); return false; }
  $("code-error").textContent = "";
  setCode(code);
  return true;
}

function toggleSideways() {
  for (const t of selectedTiles()) {
    // The box on the photo stays where it is; only the direction the face reads turns.
    t.rotated = !t.rotated;
    t.angle += t.rotated ? 90 : -90;
    [t.w, t.h] = [t.h, t.w];
    t.geomDirty = true;
  }
  changed();
}

function toggleFaceDown() {
  for (const t of selectedTiles()) {
    if (t.face_down) {
      t.face_down = false;
      const fallback = t.candidates.find(([c]) => c !== "back");
      t.code = t.prevCode || (fallback ? fallback[0] : "unknown");
    } else { t.prevCode = t.code; t.face_down = true; t.code = "back"; }
    t.touched = true;
  }
  changed();
}

function nextGroupId() { return S.tiles.reduce((m, t) => (t.group !== null ? Math.max(m, t.group + 1) : m), 0); }

function groupAs(role) {
  const tiles = selectedTiles();
  if (!tiles.length) { status("select the tiles of the set first (shift+click or shift+drag)", "error"); return; }
  const id = nextGroupId();
  for (const t of tiles) { t.group = id; if (t.role !== "winning") t.role = role; }
  changed();
}

function markRole(role) {
  for (const t of selectedTiles()) { t.role = role; if (role === "distractor") t.group = null; }
  changed();
}

function ungroup() { for (const t of selectedTiles()) { t.group = null; t.role = null; } changed(); }

function groupRole(t, except) {
  const mate = S.tiles.find((o) => o !== except && o.group !== null && o.group === t.group && o.role !== "winning");
  return mate ? mate.role : null;
}

function toggleWinning() {
  if (S.primary < 0) { status("select the winning tile first", "error"); return; }
  const t = S.tiles[S.primary];
  const wasWinning = t.role === "winning";
  for (const o of S.tiles) if (o.role === "winning") o.role = groupRole(o, o);
  if (!wasWinning) t.role = "winning";
  changed();
}

function deleteSelected() {
  if (!S.sel.size) return;
  S.tiles = S.tiles.filter((_, i) => !S.sel.has(i));
  S.sel.clear(); S.primary = -1;
  changed();
}

function moveSelected(dx, dy) {
  for (const t of selectedTiles()) { t.cx += dx; t.cy += dy; t.geomDirty = true; }
  changed();
}

function rotateSelected(deg) {
  for (const t of selectedTiles()) { t.angle += deg; t.geomDirty = true; }
  changed();
}

function readingOrder() {
  return S.tiles.map((t, i) => i).sort((a, b) => S.tiles[a].cx - S.tiles[b].cx || S.tiles[a].cy - S.tiles[b].cy);
}

function stepTile(direction) {
  if (!S.tiles.length) return;
  const order = readingOrder();
  const at = order.indexOf(S.primary);
  const next = at < 0 ? (direction > 0 ? 0 : order.length - 1) : (at + direction + order.length) % order.length;
  selectOnly(order[next]);
}

function extendSelection() {
  // Keyboard multi-select: keep what is selected and add the next tile in reading order.
  if (!S.tiles.length) return;
  const order = readingOrder();
  const at = order.indexOf(S.primary);
  const next = order[at < 0 ? 0 : Math.min(at + 1, order.length - 1)];
  S.sel.add(next); S.primary = next;
  ensureVisible(S.tiles[next]);
  draw(); renderPanel();
}

function nextLow() {
  const order = readingOrder().filter((i) => isLow(S.tiles[i]));
  if (!order.length) { status("no low-confidence tiles left on this image"); return; }
  const after = order.find((i) => readingOrder().indexOf(i) > readingOrder().indexOf(S.primary));
  selectOnly(after !== undefined ? after : order[0]);
}

function confirmAndNext() {
  if (S.primary >= 0) { S.tiles[S.primary].touched = true; }
  const hadLow = S.tiles.some(isLow);
  if (hadLow) nextLow(); else stepTile(1);
  draw(); renderPanel();
}

async function requestReadings(indices) {
  if (!S.meta.models.classifier || !indices.length) return;
  const index = S.index;
  try {
    const result = await api("POST", `/api/images/${index}/readings`, { tiles: indices.map((i) => tileToJson(S.tiles[i])) });
    if (index !== S.index) return;
    indices.forEach((i, k) => {
      const t = S.tiles[i];
      if (!t || !result.readings[k]) return;
      t.candidates = result.readings[k];
      if (t.code === "unknown") t.code = t.candidates[0][0];
    });
    changed();
  } catch (error) { status(`model: ${error.message}`, "error"); }
}

async function undo(forward) {
  await flush();
  try {
    const state = await api("POST", `/api/images/${S.index}/${forward ? "redo" : "undo"}`, {});
    if (!state.changed) { status(forward ? "nothing to redo" : "nothing to undo"); return; }
    applyState(state);
    S.images[S.index].reviewed = state.reviewed; S.images[S.index].labelled = state.labelled;
    renderImageList(); renderContextForm(); draw(); renderStrip(); renderPanel();
    status(`${forward ? "redone" : "undone"} (revision ${state.revision})`);
  } catch (error) { status(`undo failed: ${error.message}`, "error"); }
}

async function setReviewed(value, advance) {
  S.reviewed = value;
  $("reviewed-flag").textContent = value ? "✓ reviewed" : "";
  draw(); renderStrip(); renderPanel();
  scheduleSave();
  await flush();
  if (advance) await go(S.index + 1 < S.images.length ? S.index + 1 : S.index);
}

async function nextUnreviewed() {
  for (let k = 1; k <= S.images.length; k++) {
    const i = (S.index + k) % S.images.length;
    if (!S.images[i].reviewed) { await go(i); return; }
  }
  status("every image is reviewed");
}

// ------------------------------------------------------------------ mouse
function hitTile(x, y) {
  // Of the tiles under the point, the one whose centre is nearest (relative to its size) wins,
  // so overlapping neighbours are each reachable by clicking their middle.
  let best = -1, bestDistance = Infinity;
  S.tiles.forEach((t, i) => {
    const [lx, ly] = toLocal(t, x, y);
    const distance = Math.hypot(lx / t.w, ly / t.h);
    if (Math.abs(lx) <= t.w / 2 && Math.abs(ly) <= t.h / 2 && distance < bestDistance) { best = i; bestDistance = distance; }
  });
  return best;
}

function hitHandle(x, y) {
  if (S.primary < 0 || !S.sel.has(S.primary)) return null;
  const t = S.tiles[S.primary];
  const { corners: cs, knob } = handlePoints(t);
  const near = (p) => Math.hypot(p[0] - x, p[1] - y) * S.scale <= HANDLE * (window.devicePixelRatio || 1) * 1.3;
  if (near(knob)) return { kind: "rotate" };
  const k = cs.findIndex(near);
  return k >= 0 ? { kind: "resize", corner: k, opposite: cs[(k + 2) % 4] } : null;
}

canvas.addEventListener("contextmenu", (event) => event.preventDefault());

canvas.addEventListener("wheel", (event) => {
  event.preventDefault();
  const rect = canvas.getBoundingClientRect(), ratio = canvas.width / rect.width;
  zoomAt(event.deltaY < 0 ? 1.25 : 0.8, [(event.clientX - rect.left) * ratio, (event.clientY - rect.top) * ratio]);
}, { passive: false });

canvas.addEventListener("mousedown", (event) => {
  canvas.focus();
  if (!S.photo) return;
  if (event.button !== 0) { // middle or right button: pan
    S.drag = { kind: "pan", last: [event.clientX, event.clientY], moved: true };
    return;
  }
  const [x, y] = screenToImage(event);
  const handle = hitHandle(x, y);
  if (handle) { S.drag = { ...handle, start: [x, y], moved: false }; return; }
  const i = hitTile(x, y);
  if (i >= 0) {
    if (event.shiftKey) {
      if (S.sel.has(i)) S.sel.delete(i); else { S.sel.add(i); S.primary = i; }
      draw(); renderPanel(); return;
    }
    if (!S.sel.has(i)) selectOnly(i); else { S.primary = i; renderPanel(); }
    S.drag = { kind: "move", start: [x, y], last: [x, y], moved: false };
    return;
  }
  S.drag = { kind: event.shiftKey ? "band" : "new", start: [x, y], now: [x, y], moved: false };
});

window.addEventListener("mousemove", (event) => {
  if (!S.drag) return;
  const d = S.drag;
  if (d.kind === "pan") {
    const ratio = canvas.width / canvas.getBoundingClientRect().width;
    S.ox += (event.clientX - d.last[0]) * ratio; S.oy += (event.clientY - d.last[1]) * ratio;
    d.last = [event.clientX, event.clientY]; S.zoomed = true;
    draw();
    return;
  }
  const [x, y] = screenToImage(event);
  d.moved = d.moved || Math.hypot(x - d.start[0], y - d.start[1]) * S.scale > 3;
  if (!d.moved) return;
  if (d.kind === "move") {
    for (const t of selectedTiles()) { t.cx += x - d.last[0]; t.cy += y - d.last[1]; t.geomDirty = true; }
    d.last = [x, y];
  } else if (d.kind === "resize") {
    const t = S.tiles[S.primary];
    const c = Math.cos(rad(t.angle)), s = Math.sin(rad(t.angle));
    const dx = x - d.opposite[0], dy = y - d.opposite[1];
    t.w = Math.max(4, Math.abs(dx * c + dy * s));
    t.h = Math.max(4, Math.abs(-dx * s + dy * c));
    t.cx = (x + d.opposite[0]) / 2; t.cy = (y + d.opposite[1]) / 2;
    t.geomDirty = true;
  } else if (d.kind === "rotate") {
    const t = S.tiles[S.primary];
    t.angle = (Math.atan2(x - t.cx, -(y - t.cy)) * 180) / Math.PI;
    if (!event.altKey) t.angle = Math.round(t.angle); // whole degrees unless alt is held
    t.geomDirty = true;
  } else {
    d.now = [x, y];
  }
  draw();
});

window.addEventListener("mouseup", () => {
  const d = S.drag;
  S.drag = null;
  if (!d || d.kind === "pan") return;
  if (d.kind === "new" || d.kind === "band") {
    const [x1, y1] = [Math.min(d.start[0], d.now[0]), Math.min(d.start[1], d.now[1])];
    const [x2, y2] = [Math.max(d.start[0], d.now[0]), Math.max(d.start[1], d.now[1])];
    if (!d.moved) { selectOnly(-1); return; }
    if (d.kind === "band") {
      S.sel = new Set(S.tiles.map((t, i) => i).filter((i) => S.tiles[i].cx >= x1 && S.tiles[i].cx <= x2
        && S.tiles[i].cy >= y1 && S.tiles[i].cy <= y2));
      S.primary = S.sel.size ? [...S.sel][0] : -1;
      draw(); renderPanel(); return;
    }
    if (x2 - x1 < 4 || y2 - y1 < 4) { draw(); return; }
    const box = [clamp(x1, 0, S.width), clamp(y1, 0, S.height), clamp(x2, 0, S.width), clamp(y2, 0, S.height)].map(round1);
    const t = tileFromJson({ code: "unknown", box });
    t.geomDirty = true;
    S.tiles.push(t);
    selectOnly(S.tiles.length - 1);
    changed();
    requestReadings([S.tiles.length - 1]);
    return;
  }
  if (d.moved) { changed(); if (d.kind !== "rotate") requestReadings([...S.sel]); }
});

// ------------------------------------------------------------------ keyboard
const inForm = (el) => el && (el.tagName === "INPUT" || el.tagName === "SELECT" || el.tagName === "TEXTAREA");

$("code-input").addEventListener("keydown", (event) => {
  if (event.key === "Enter") {
    event.preventDefault();
    if (applyTyped(event.target.value)) { event.target.value = ""; canvas.focus(); }
  } else if (event.key === "Escape") { event.target.value = ""; canvas.focus(); }
  event.stopPropagation();
});

$("context-form").addEventListener("keydown", (event) => {
  if (event.key === "Escape") { canvas.focus(); event.preventDefault(); }
  event.stopPropagation();
});

document.addEventListener("keydown", (event) => {
  if (inForm(document.activeElement)) return;
  if (S.view === "review") {
    if (event.key === "Escape" || (event.key === "R" && event.shiftKey)) { showView("label"); event.preventDefault(); }
    return;
  }
  const key = event.key, ctrl = event.ctrlKey || event.metaKey;
  if (S.typing !== null && !ctrl && !event.altKey) {
    event.preventDefault();
    if (key === "Enter") { const text = S.typing; S.typing = null; applyTyped(text); renderPanel(); }
    else if (key === "Escape") { S.typing = null; renderPanel(); }
    else if (key === "Backspace") { S.typing = S.typing.slice(0, -1); if (!S.typing) S.typing = null; renderPanel(); }
    else if (key.length === 1) { S.typing += key; renderPanel(); }
    return;
  }
  if (ctrl && (key === "z" || key === "Z")) { event.preventDefault(); undo(event.shiftKey); return; }
  if (ctrl && key === "y") { event.preventDefault(); undo(true); return; }
  if (ctrl && key === "a") { event.preventDefault(); selectAll(); return; }
  if (ctrl) return;
  if (event.altKey && /^Digit[1-9]$/.test(event.code)) {
    event.preventDefault();
    const t = S.tiles[S.primary];
    const k = parseInt(event.code.slice(5), 10) - 1;
    if (t && t.candidates[k]) setCode(t.candidates[k][0]);
    return;
  }
  if (/^[0-9]$/.test(key) && !event.altKey) {
    if (!S.sel.size) { status("select a tile first (tab, l or click)", "error"); return; }
    S.typing = key; renderPanel(); event.preventDefault(); return;
  }
  const actions = {
    n: () => go(S.index + 1), p: () => go(S.index - 1), PageDown: () => go(S.index + 1), PageUp: () => go(S.index - 1),
    N: () => nextUnreviewed(), v: () => setReviewed(true, true), V: () => setReviewed(false, false),
    Tab: () => stepTile(event.shiftKey ? -1 : 1), l: () => nextLow(), Enter: () => confirmAndNext(),
    r: () => toggleSideways(), t: () => rotateSelected(180), " ": () => extendSelection(), f: () => toggleFaceDown(), g: () => groupAs("meld"), k: () => groupAs("concealed_kong"),
    h: () => groupAs("concealed"), o: () => groupAs("flower"), d: () => markRole("distractor"), u: () => ungroup(),
    w: () => toggleWinning(), Delete: () => deleteSelected(), Backspace: () => deleteSelected(),
    a: () => selectAll(), Escape: () => selectOnly(-1), "/": () => $("code-input").focus(),
    c: () => { const first = $("context-form").querySelector("input,select"); if (first) first.focus(); },
    R: () => showView("review"), ",": () => rotateSelected(-5), ".": () => rotateSelected(5),
    ArrowLeft: () => moveSelected(event.shiftKey ? -10 : -1, 0), ArrowRight: () => moveSelected(event.shiftKey ? 10 : 1, 0),
    ArrowUp: () => moveSelected(0, event.shiftKey ? -10 : -1), ArrowDown: () => moveSelected(0, event.shiftKey ? 10 : 1),
    "?": () => $("keys").scrollIntoView(), z: () => toggleZoom(),
  };
  const action = actions[key];
  if (action) { event.preventDefault(); action(); }
});

function selectAll() { S.sel = new Set(S.tiles.map((_, i) => i)); S.primary = S.tiles.length ? 0 : -1; draw(); renderPanel(); }

// ------------------------------------------------------------------ review view
function showView(view) {
  S.view = view;
  $("label-view").hidden = view !== "label";
  $("review-view").hidden = view !== "review";
  $("tab-label").classList.toggle("active", view === "label");
  $("tab-review").classList.toggle("active", view === "review");
  if (view === "review") loadReview(); else { resize(); canvas.focus(); }
}

function row(cells, onClick) {
  const tr = document.createElement("tr");
  for (const cell of cells) { const td = document.createElement("td"); td.textContent = cell; tr.appendChild(td); }
  if (onClick) tr.addEventListener("click", onClick);
  return tr;
}

async function openTile(index, tile) {
  showView("label");
  await go(index);
  if (tile !== null && tile !== undefined && tile < S.tiles.length) selectOnly(tile);
}

async function loadReview() {
  await flush();
  status("computing review…", "saving");
  const data = await api("GET", "/api/review");
  const counts = $("counts");
  counts.textContent = "";
  counts.appendChild(row(["code", "name", "tiles"]));
  for (const [code, n] of Object.entries(data.counts)) {
    const tr = row([code, S.meta.names[code] || "not identified", String(n)], () => showSheet(code));
    if (!n) tr.lastChild.className = "zero";
    tr.dataset.code = code;
    counts.appendChild(tr);
  }
  $("unreviewed-count").textContent = `(${data.unreviewed.length} of ${data.images})`;
  const list = $("unreviewed");
  list.textContent = "";
  for (const item of data.unreviewed) {
    const li = document.createElement("li");
    li.textContent = `${item.index + 1}. ${item.image}${item.tiles === null ? " (no labels)" : ` (${item.tiles} tiles)`}`;
    li.addEventListener("click", () => openTile(item.index, null));
    list.appendChild(li);
  }
  $("disagreement-count").textContent = `(${data.disagreements.length})`;
  $("disagreement-note").textContent = data.has_classifier ? "Most confident model first: likely label mistakes."
    : "No classifier model: nothing to compare against.";
  const table = $("disagreements");
  table.textContent = "";
  table.appendChild(row(["image", "tile (left to right)", "kind", "label", "model", "p"]));
  for (const d of data.disagreements) {
    table.appendChild(row([`${d.index + 1}. ${d.image}`, d.tile === null ? "–" : String(d.position), d.kind, d.label || "–", d.model || "–",
      d.confidence ? d.confidence.toFixed(2) : ""], () => openTile(d.index, d.tile)));
  }
  status(`${data.labelled} of ${data.images} images labelled`);
}

async function showSheet(code) {
  const entries = await api("GET", `/api/crops?code=${encodeURIComponent(code)}`);
  $("sheet-code").textContent = `${code} (${entries.length})`;
  const sheet = $("sheet");
  sheet.textContent = "";
  for (const e of entries) {
    const figure = document.createElement("figure");
    const img = document.createElement("img");
    img.loading = "lazy"; img.alt = `${code} in ${e.image}`;
    img.src = `/api/images/${e.index}/tiles/${e.tile}/crop.jpg`;
    const caption = document.createElement("figcaption");
    caption.textContent = `${e.index + 1}:${e.tile + 1}`;
    figure.append(img, caption);
    figure.addEventListener("click", () => openTile(e.index, e.tile));
    sheet.appendChild(figure);
  }
}

// ------------------------------------------------------------------ adding photos
async function uploadPhotos(files) {
  let first = null;
  for (const file of files) {
    if (file.size > S.meta.max_upload_bytes) { status(`${file.name}: too large to add`, "error"); continue; }
    status(`adding ${file.name}…`, "saving");
    try {
      const response = await fetch(`/api/upload?name=${encodeURIComponent(file.name)}`, {
        method: "POST", body: file,
        headers: { "Content-Type": "application/octet-stream", "X-Taicam-Label": "1" },
      });
      const data = await response.json();
      if (!response.ok) throw new Error(data.error || response.statusText);
      if (first === null) first = data.index;
    } catch (error) { status(`${file.name} not added: ${error.message}`, "error"); return; }
  }
  if (first === null) return;
  S.images = await api("GET", "/api/images");
  renderImageList();
  await go(first);
  status(`added ${files.length} photo(s) to ${S.meta.folder}/uploads`);
}

$("upload-input").addEventListener("change", (event) => { uploadPhotos([...event.target.files]); event.target.value = ""; });
document.addEventListener("dragover", (event) => event.preventDefault());
document.addEventListener("drop", (event) => {
  event.preventDefault();
  const files = [...event.dataTransfer.files].filter((f) => f.type.startsWith("image/"));
  if (files.length) uploadPhotos(files);
});

// ------------------------------------------------------------------ start
async function start() {
  S.meta = await api("GET", "/api/meta");
  S.images = await api("GET", "/api/images");
  $("tab-label").addEventListener("click", () => showView("label"));
  $("tab-review").addEventListener("click", () => showView("review"));
  window.addEventListener("resize", resize);
  if (!S.images.length) {
    status("no photos in this folder yet: add some (button or drop them here)", "error");
    document.body.dataset.ready = "1";
    return;
  }
  const first = S.images.findIndex((r) => !r.reviewed);
  await go(first >= 0 ? first : 0);
  canvas.focus();
  document.body.dataset.ready = "1";
}

start().catch((error) => status(`cannot start: ${error.message}`, "error"));
