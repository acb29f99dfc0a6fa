// taicam serve: the table's page. State lives on the server; this page shows it and sends choices.
"use strict";

const S = {
  meta: null, view: null, reading: null, fixes: [], source: null,
  win: { winner: null, discarder: null, flags: {} }, scored: null, busy: false, picking: null,
};
const COLOURS = ["#2563eb", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be123c", "#4d7c0f"];
const WIND = { "1z": "E", "2z": "S", "3z": "W", "4z": "N" };
const FLAG_NAMES = { last_tile: "Last tile", robbing_kong: "Robbing a kong", replacement_draw: "Replacement draw",
  kong_chain: "Kong on kong", ting: "Called ting", first_turn: "First turn" };
const $ = (id) => document.getElementById(id);

function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style") for (const [p, v] of Object.entries(value)) node.style.setProperty(p, v);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node[key] = value;
  }
  for (const child of [].concat(children)) node.append(child);
  return node;
}

function show(screen) { document.body.dataset.screen = screen; window.scrollTo(0, 0); }

function say(text, ok = false) {
  const box = $("message");
  box.hidden = !text; box.textContent = text || ""; box.className = ok ? "ok" : "";
}

async function api(method, path, body) {
  const options = { method, headers: { "X-Taicam": "1" } };
  if (body !== undefined) { options.headers["Content-Type"] = "application/json"; options.body = JSON.stringify(body); }
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) {
    const error = new Error(data.error || `HTTP ${response.status}`);
    error.stale = !!data.stale;
    throw error;
  }
  return data;
}

async function guarded(action) {
  if (S.busy) return;
  S.busy = true; document.body.dataset.busy = "1";
  try { say(""); await action(); } catch (error) {
    say(error.message);
    if (error.stale) await refreshGame();
  } finally { S.busy = false; delete document.body.dataset.busy; }
}

function faceLabel(code) {
  return [el("b", { textContent: code }), el("small", { textContent: S.meta.chinese[code] || "" })];
}
function name(player) { return S.view.game.players[player]; }

// ------------------------------------------------------------------ the table
function renderGame() {
  const view = S.view;
  $("new-game").hidden = !!view.game; $("table").hidden = !view.game;
  if (!view.game) { $("table-line").textContent = "no game yet"; return; }
  const state = view.state;
  $("table-line").textContent = `${WIND[state.round_wind]} round · dealer ${state.dealer_name}`;
  $("round-line").textContent = `${WIND[state.round_wind]} round, hand ${state.hands + 1}: ${state.dealer_name} deals`
    + (state.streak ? ` (streak ${state.streak})` : "");
  $("players").replaceChildren(...view.game.players.map((player, i) => el("li", {
    className: i === state.dealer ? "dealer" : "", dataset: { player: String(i) } }, [
    el("span", { className: "wind", textContent: WIND[state.seats[i]] }),
    el("span", { className: "name", textContent: player + (i === state.dealer ? " (dealer)" : "") }),
    el("span", { className: "balance", textContent: (state.balances[i] > 0 ? "+" : "") + state.balances[i] })])));
  $("hands").replaceChildren(...view.hands.map((hand) => el("li", { textContent: hand.kind === "draw"
    ? "drawn hand" : `${name(hand.winner)} won ${hand.total} `
      + (hand.discarder === null ? "self-drawn" : `from ${name(hand.discarder)}`) })));
  $("undo-hand").disabled = view.hands.length === 0;
}

async function refreshGame() {
  S.view = await api("GET", "/api/game");
  renderGame();
}

async function poll() {
  if (document.body.dataset.screen === "game" && !S.busy) {
    try {
      const view = await api("GET", "/api/game");
      const version = (v) => (v.game ? `${v.game.id}:${v.game.version}` : "");
      if (version(view) !== version(S.view)) { S.view = view; renderGame(); }
    } catch (error) { say(error.message); }
  }
  setTimeout(poll, 3000);
}

// ------------------------------------------------------------------ the photo
function uploadPhoto(file) {
  if (file.size > S.meta.max_upload_bytes) {
    say(`That photo is ${(file.size / 1e6).toFixed(1)} MB; the limit is ${S.meta.max_upload_bytes / 1048576} MB.`);
    return;
  }
  $("progress-box").hidden = false; $("progress").value = 0; $("progress-text").textContent = "Sending the photo…";
  S.busy = true; document.body.dataset.busy = "1"; say("");
  const request = new XMLHttpRequest();
  request.open("POST", "/api/photos");
  request.setRequestHeader("X-Taicam", "1");
  request.setRequestHeader("Content-Type", file.type || "application/octet-stream");
  request.upload.onprogress = (event) => {
    if (event.lengthComputable) $("progress").value = Math.round(90 * event.loaded / event.total);
  };
  request.upload.onload = () => { $("progress").removeAttribute("value"); $("progress-text").textContent = "Reading the tiles…"; };
  const done = () => { S.busy = false; delete document.body.dataset.busy; $("progress-box").hidden = true; $("photo-input").value = ""; };
  request.onload = () => {
    done();
    let data = {};
    try { data = JSON.parse(request.responseText); } catch (error) { data = { error: `HTTP ${request.status}` }; }
    if (request.status !== 200) { say(`The photo was refused: ${data.error}`); return; }
    S.fixes = []; showReading(data);
  };
  request.onerror = () => { done(); say("The photo could not be sent: is the server still running?"); };
  request.send(file);
}

function showReading(doc) {
  S.reading = doc; S.source = { photo: doc.photo, fixes: [...doc.fixes] };
  const img = $("picture-img");
  const src = `/api/photos/${doc.photo}/preview.jpg`;
  if (img.getAttribute("src") !== src) img.src = src;
  const changed = new Set(doc.fixes.map((fix) => fix.split("=")[1]));
  const boxes = doc.tiles.map((tile, i) => {
    const [x1, y1, x2, y2] = tile.box;
    const colour = tile.group === null ? "#6b7280" : COLOURS[tile.group % COLOURS.length];
    return el("button", { className: `box${tile.role === "winning" ? " win" : ""}${changed.has(tile.code) ? " fixed" : ""}`,
      title: `${tile.code}: tap to change`, dataset: { i: String(i) }, onclick: () => openPicker(i),
      style: { "--c": colour, left: `${100 * x1 / doc.width}%`, top: `${100 * y1 / doc.height}%`,
        width: `${100 * (x2 - x1) / doc.width}%`, height: `${100 * (y2 - y1) / doc.height}%` } },
    [el("span", { textContent: tile.code })]);
  });
  $("picture").replaceChildren(img, ...boxes);
  $("refusal").hidden = doc.ok; $("refused-type").hidden = doc.ok; $("refusal").textContent = doc.ok ? "" : `${doc.error}. ${doc.advice}`;
  $("suggested").replaceChildren(...(doc.ok ? [] : (doc.suggested_fixes || []).map((fix) =>
    el("button", { textContent: `try ${fix}`, onclick: () => guarded(() => reread([...S.fixes, fix])) }))));
  renderGroups(doc);
  $("fixes").replaceChildren(...S.fixes.map((fix, k) => el("button", { textContent: `${fix} ✕`,
    title: "undo this fix", onclick: () => guarded(() => reread(S.fixes.filter((_, j) => j !== k))) })));
  $("reading-warnings").replaceChildren(...(doc.warnings || []).filter((w) => !doc.ok || w !== doc.error)
    .map((w) => el("li", { textContent: w })));
  $("reading-next").disabled = !doc.ok;
  show("reading");
}

function renderGroups(doc) {
  const report = doc.confidence_report || { groups: [] };
  const byGroup = new Map();
  doc.tiles.forEach((tile, i) => {
    const key = tile.group === null ? "none" : tile.group;
    if (!byGroup.has(key)) byGroup.set(key, []);
    byGroup.get(key).push(i);
  });
  const order = [...byGroup.keys()].sort((a, b) => (a === "none") - (b === "none") || a - b);
  $("groups").replaceChildren(...order.map((key) => {
    const info = report.groups.find((g) => g.group === key);
    const title = key === "none" ? (doc.ok ? "not in the hand" : "tiles found")
      : `${info ? (info.kind || info.role) : "group"}${info ? ` · ${Math.round(100 * info.confidence)}%` : ""}`;
    const colour = key === "none" ? "#6b7280" : COLOURS[key % COLOURS.length];
    return el("div", { className: "group" }, [el("div", { className: "group-title", textContent: title }),
      el("div", { className: "tiles" }, byGroup.get(key).map((i) => {
        const tile = doc.tiles[i];
        return el("button", { className: `tile${tile.role === "winning" ? " win" : ""}${tile.confidence < 0.6 ? " unsure" : ""}`,
          dataset: { i: String(i), code: tile.code }, style: { "--c": colour }, onclick: () => openPicker(i),
          title: tile.role === "winning" ? "the winning tile" : "" }, faceLabel(tile.code));
      }))]);
  }));
}

async function reread(fixes) {
  $("progress-text").textContent = "Reading the hand again…";
  const doc = await api("POST", `/api/photos/${S.reading.photo}/read`, { fixes });
  S.fixes = fixes; showReading(doc);
}

// ------------------------------------------------------------------ the tile picker
function faceButtons(codes, onPick, withShare) {
  return codes.map((entry) => {
    const code = typeof entry === "string" ? entry : entry.code;
    const label = faceLabel(code);
    if (withShare) label.push(el("small", { textContent: `${Math.round(100 * entry.p)}%` }));
    return el("button", { dataset: { code }, onclick: () => onPick(code) }, label);
  });
}

function openPicker(index) {
  const tile = S.reading.tiles[index];
  S.picking = index;
  $("picker-title").textContent = `Read as ${tile.code} (${Math.round(100 * tile.confidence)}%). What is it?`;
  const pick = (code) => {
    closePicker();
    if (code !== tile.code) guarded(() => reread([...S.fixes, `${tile.code}=${code}`]));
  };
  $("picker-top").replaceChildren(...faceButtons((tile.topk || []).filter((c) => c.code !== tile.code && c.code !== "back"), pick, true));
  $("picker-grid").replaceChildren(...faceButtons(S.meta.codes, pick, false));
  $("picker").hidden = false;
}
function closePicker() { $("picker").hidden = true; S.picking = null; }

// ------------------------------------------------------------------ the win and the score
function choiceButton(text, pressed, onclick, data) {
  return el("button", { textContent: text, onclick, dataset: data, ariaPressed: String(pressed) });
}

function renderWin() {
  const players = S.view.game.players, win = S.win;
  $("winner-buttons").replaceChildren(...players.map((player, i) => choiceButton(player, win.winner === i, () => {
    win.winner = i; if (win.discarder === i) win.discarder = null; renderWin();
  }, { winner: String(i) })));
  $("discarder-buttons").replaceChildren(choiceButton("Self-drawn", win.discarder === null,
    () => { win.discarder = null; renderWin(); }, { discarder: "self" }),
  ...players.map((player, i) => (i === win.winner ? null : choiceButton(`${player} discarded`, win.discarder === i,
    () => { win.discarder = i; renderWin(); }, { discarder: String(i) }))).filter(Boolean));
  $("flag-buttons").replaceChildren(...S.meta.flags.map((flag) => choiceButton(FLAG_NAMES[flag] || flag, !!win.flags[flag],
    () => { win.flags[flag] = !win.flags[flag]; renderWin(); }, { flag })));
  $("score-now").disabled = win.winner === null;
}

function goWin(back) {
  S.win = { winner: null, discarder: null, flags: {} };
  $("win-back").dataset.go = back;
  renderWin(); show("win");
}

function handBody() { return { ...S.source, winner: S.win.winner, discarder: S.win.discarder, flags: S.win.flags }; }

async function scoreHand() {
  const scored = await api("POST", "/api/score", handBody());
  S.scored = scored;
  const score = scored.score;
  $("score-title").textContent = `${name(scored.winner)} wins ` + (scored.discarder === null ? "self-drawn" : `from ${name(scored.discarder)}`);
  $("sure").textContent = scored.sure.words; $("sure").className = scored.sure.sure ? "sure" : "sure unsure";
  $("alternatives").replaceChildren(...scored.sure.alternatives.map((text) => el("li", { textContent: text })));
  $("items").tBodies[0].replaceChildren(...score.items.map((item) => el("tr", {}, [
    el("td", {}, [el("span", { textContent: item.name + (item.count > 1 ? ` ×${item.count}` : "") + " " }),
      el("span", { className: "zh", textContent: item.name_zh })]),
    el("td", { className: "value", textContent: String(item.value) })])));
  $("total").textContent = `Total ${score.total} ${score.unit}`;
  $("lines").replaceChildren(...scored.lines.map((line) => el("li", { textContent: `${line.from} pays ${line.to} ${line.amount} (${line.note})` })));
  $("score-warnings").replaceChildren(...score.warnings.map((w) => el("li", { textContent: w })));
  show("score");
}

async function addHand() {
  const view = await api("POST", "/api/hands", { ...handBody(), version: S.view.game.version });
  S.view = view; renderGame();
  const added = view.added;
  say(`Hand added: ${name(added.winner)} +${added.deltas[added.winner]}. Next dealer: ${view.state.dealer_name}.`, true);
  show("game");
}

// ------------------------------------------------------------------ typing a hand
function setupTyping() {
  const box = $("notation");
  $("type-grid").replaceChildren(...faceButtons(S.meta.codes, (code) => { box.value += (box.value && !/[\s[(+]$/.test(box.value) ? " " : "") + code; }, false));
  document.querySelectorAll(".notation-keys button").forEach((button) => button.addEventListener("click", () => {
    const key = button.dataset.key;
    if (key === "back") box.value = box.value.replace(/\s*\S{0,2}$/, "");
    else box.value += ("[(+".includes(key) && box.value && !/\s$/.test(box.value) ? " " : "") + key;
  }));
  $("type-next").addEventListener("click", () => {
    if (!box.value.trim()) { say("Type the hand first, e.g. 123m 456p 789s 11z 234s 55s +5s"); return; }
    S.source = { notation: box.value.trim() }; goWin("type");
  });
}

// ------------------------------------------------------------------ start
async function start() {
  S.meta = await api("GET", "/api/meta");
  $("rules-select").replaceChildren(...S.meta.rulesets.map((r) => el("option", { value: r.id, textContent: r.name, selected: r.id === S.meta.rules })));
  setupTyping();
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    guarded(async () => {
      S.view = await api("POST", "/api/games", { players: [0, 1, 2, 3].map((i) => form.get(`p${i}`)), rules: form.get("rules") });
      renderGame();
    });
  });
  $("go-new-game").addEventListener("click", () => { $("table").hidden = true; $("new-game").hidden = false; });
  $("go-photo").addEventListener("click", () => show("photo"));
  $("go-type").addEventListener("click", () => show("type"));
  $("photo-input").addEventListener("change", (event) => { if (event.target.files[0]) uploadPhoto(event.target.files[0]); });
  $("draw-hand").addEventListener("click", () => guarded(async () => {
    S.view = await api("POST", "/api/hands", { kind: "draw", version: S.view.game.version });
    renderGame(); say(`Drawn hand. Next dealer: ${S.view.state.dealer_name}.`, true);
  }));
  $("undo-hand").addEventListener("click", () => guarded(async () => {
    S.view = await api("POST", "/api/undo", { version: S.view.game.version });
    renderGame(); say("The last hand was undone.", true);
  }));
  $("reading-next").addEventListener("click", () => goWin("reading"));
  $("score-now").addEventListener("click", () => guarded(scoreHand));
  $("add-hand").addEventListener("click", () => guarded(addHand));
  $("picker-close").addEventListener("click", closePicker);
  $("win-back").addEventListener("click", () => { say(""); show($("win-back").dataset.go); });
  document.querySelectorAll("[data-go]").forEach((button) => button.addEventListener("click", () => { say(""); show(button.dataset.go); }));
  await refreshGame();
  document.body.dataset.ready = "1";
  setTimeout(poll, 3000);
}

start().catch((error) => say(`The page could not start: ${error.message}`));
