// tandem's browser view: draws the frames an app sends over the socket, sends the pointer, wheel,
// touch and keys of the canvas (when this browser drives), and shows the stats the app sends a
// few times a second. The protocol is engine/web/Protocol.h's. No dependencies.
'use strict';

const $ = (id) => document.getElementById(id);
const canvas = $('frame');
const context = canvas.getContext('2d', { alpha: false });

// The token arrives in the URL once; the server then keeps it in a cookie for this page's
// requests, so it leaves the address bar (and screenshots of it).
const params = new URLSearchParams(location.search);
const token = params.get('token') || '';
if (token) history.replaceState(null, '', location.pathname);

const state = {
  socket: null,
  client: 0,
  driver: 0,
  quality: 80,
  still: false,        // the next frame asked for as a lossless PNG, to download
  inputSeq: 0,
  pendingInput: [],    // events not sent yet (sent once an animation frame)
  sentAt: new Map(),   // input seq -> when it was sent
  latencies: [],
  frames: [],          // arrival times of recent frames
  bytes: 0,
  decoding: false,
  nextFrame: null,     // a frame that arrived while one was decoding (newest wins)
  frameWidth: 0,
  frameHeight: 0,
  plot: [],
  ticks: [],           // recent animation frame times: the display's rate
  displayFps: 0,       // that rate as last sent: frames beyond it would never be shown
};

function driving() { return state.client !== 0 && state.client === state.driver; }

function send(message) {
  if (state.socket && state.socket.readyState === WebSocket.OPEN)
    state.socket.send(JSON.stringify(message));
}

function viewSize() {
  const ratio = window.devicePixelRatio || 1;
  const rect = canvas.getBoundingClientRect();
  return {
    width: Math.max(1, Math.min(8192, Math.round(rect.width * ratio))),
    height: Math.max(1, Math.min(8192, Math.round(rect.height * ratio))),
  };
}

function sendView(type) {
  const size = viewSize();
  const view = { type, width: size.width, height: size.height, quality: state.quality,
                 format: state.still ? 'png' : 'jpeg' };
  if (state.displayFps > 0) view.max_fps = state.displayFps;
  send(view);
}

function connect() {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const url = `${scheme}//${location.host}/socket${token ? '?token=' + encodeURIComponent(token) : ''}`;
  const socket = new WebSocket(url);
  socket.binaryType = 'arraybuffer';
  state.socket = socket;
  socket.onopen = () => {
    setConnection('connected', true);
    sendView('hello');
  };
  socket.onclose = () => {
    setConnection('disconnected (reload to reconnect)', false);
    state.socket = null;
  };
  socket.onerror = () => setConnection('refused or lost', false);
  socket.onmessage = (event) => {
    if (typeof event.data === 'string') onText(JSON.parse(event.data));
    else onFrame(event.data);
  };
}

function setConnection(text, ok) {
  const element = $('connection');
  element.textContent = text;
  element.className = ok ? 'good' : 'bad';
}

// --- frames ----------------------------------------------------------------------------------

function onFrame(buffer) {
  const view = new DataView(buffer);
  const length = view.getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, length)));
  const image = new Uint8Array(buffer, 4 + length);
  const now = performance.now();
  state.frames.push(now);
  state.bytes = image.byteLength;
  for (const [seq, sent] of state.sentAt) {
    if (seq > header.input_seq) continue;
    state.latencies.push(now - sent);
    state.sentAt.delete(seq);
  }
  const blob = new Blob([image], { type: header.format === 'png' ? 'image/png' : 'image/jpeg' });
  if (header.format === 'png' && state.still) {
    state.still = false;
    download(blob, `tandem-frame-${header.frame}.png`);
    sendView('view');
  }
  state.nextFrame = { header, blob };
  if (!state.decoding) decodeNext();
}

async function decodeNext() {
  // Newest wins here too: frames that arrive while one decodes replace each other.
  while (state.nextFrame) {
    const { header, blob } = state.nextFrame;
    state.nextFrame = null;
    state.decoding = true;
    try {
      const bitmap = await createImageBitmap(blob);
      if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) {
        canvas.width = bitmap.width;
        canvas.height = bitmap.height;
      }
      context.drawImage(bitmap, 0, 0);
      bitmap.close();
      state.frameWidth = header.width;
      state.frameHeight = header.height;
      $('size').textContent = `${header.width}×${header.height}`;
      document.body.dataset.frame = String(header.frame);
    } catch (error) {
      banner(`a frame could not be decoded: ${error}`);
    }
    state.decoding = false;
  }
}

function download(blob, name) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

function banner(text) {
  const element = $('banner');
  element.textContent = text;
  element.hidden = !text;
}

// --- input -----------------------------------------------------------------------------------

// Canvas pixels to the frame's: the frame may be smaller or larger than the canvas shows it.
function framePoint(event) {
  const rect = canvas.getBoundingClientRect();
  const width = state.frameWidth || canvas.width;
  const height = state.frameHeight || canvas.height;
  return { x: (event.clientX - rect.left) * width / rect.width,
           y: (event.clientY - rect.top) * height / rect.height };
}

function queueInput(event) {
  if (!driving()) return;
  state.pendingInput.push(event);
}

function flushInput() {
  if (state.pendingInput.length > 0 && driving()) {
    const seq = ++state.inputSeq;
    // Moves between two sends are one move: only the latest position matters.
    const events = [];
    for (const event of state.pendingInput) {
      const last = events[events.length - 1];
      if (event.kind === 'move' && last && last.kind === 'move') events[events.length - 1] = event;
      else events.push(event);
    }
    send({ type: 'input', seq, events: events.slice(0, 256) });
    state.sentAt.set(seq, performance.now());
  }
  state.pendingInput = [];
  measureDisplay(performance.now());
  requestAnimationFrame(flushInput);
}

// The display's refresh rate, from the median of the last animation frames' intervals: the app
// reads frames no faster than that for this page (a tab in the background runs none, and keeps
// the last rate). Sent again when it changes by a tenth (the window moved to another display).
function measureDisplay(now) {
  state.ticks.push(now);
  if (state.ticks.length < 61) return;
  const intervals = state.ticks.slice(1).map((t, i) => t - state.ticks[i]).sort((a, b) => a - b);
  state.ticks = [];
  const median = intervals[intervals.length >> 1];
  if (!(median > 0)) return;
  const fps = Math.min(1000, Math.max(1, Math.round(1000 / median)));
  if (Math.abs(fps - state.displayFps) < 0.1 * Math.max(fps, state.displayFps)) return;
  state.displayFps = fps;
  sendView('view');
}
requestAnimationFrame(flushInput);

const pointers = new Map(); // touch: id -> last position
let pinch = 0;

canvas.addEventListener('pointerdown', (event) => {
  canvas.focus();
  canvas.setPointerCapture(event.pointerId);
  pointers.set(event.pointerId, framePoint(event));
  if (pointers.size === 2) {
    // Two fingers: pinch zooms, the first finger's drag ends.
    const [a, b] = [...pointers.values()];
    pinch = Math.hypot(a.x - b.x, a.y - b.y);
    queueInput({ kind: 'up', ...a, button: 0 });
    return;
  }
  if (pointers.size > 2) return;
  const button = event.button === 2 ? 1 : event.button === 1 ? 2 : 0;
  queueInput({ kind: 'down', ...framePoint(event), button });
  event.preventDefault();
});
canvas.addEventListener('pointermove', (event) => {
  if (pointers.has(event.pointerId)) pointers.set(event.pointerId, framePoint(event));
  if (pointers.size === 2) {
    const [a, b] = [...pointers.values()];
    const distance = Math.hypot(a.x - b.x, a.y - b.y);
    if (pinch > 0 && distance > 0) queueInput({ kind: 'wheel', dy: Math.log(distance / pinch) * 8 });
    pinch = distance;
    return;
  }
  queueInput({ kind: 'move', ...framePoint(event) });
});
function pointerEnd(event) {
  const was = pointers.size;
  pointers.delete(event.pointerId);
  if (was === 1) {
    const button = event.button === 2 ? 1 : event.button === 1 ? 2 : 0;
    queueInput({ kind: 'up', ...framePoint(event), button });
  }
  if (pointers.size < 2) pinch = 0;
}
canvas.addEventListener('pointerup', pointerEnd);
canvas.addEventListener('pointercancel', pointerEnd);
canvas.addEventListener('contextmenu', (event) => event.preventDefault());
canvas.addEventListener('wheel', (event) => {
  event.preventDefault();
  // Lines or pixels to the window's notches: a notch is about 100 pixels.
  const notches = event.deltaMode === 1 ? event.deltaY / 3 : event.deltaY / 100;
  queueInput({ kind: 'wheel', dy: Math.max(-1000, Math.min(1000, -notches)) });
}, { passive: false });

// The window's keys; S and F2 save a PNG and P the camera path here (downloads in the
// browser), not on the server.
document.addEventListener('keydown', (event) => {
  if (event.target instanceof HTMLInputElement || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === 's' || event.key === 'S' || event.key === 'F2') {
    takeStill();
    event.preventDefault();
    return;
  }
  if (event.key === 'p' || event.key === 'P') {
    if (driving()) send({ type: 'command', name: 'camera_path' });
    return;
  }
  if (event.key.length > 32) return;
  queueInput({ kind: 'key', key: event.key });
  if (event.key === ' ' || event.key.startsWith('Arrow')) event.preventDefault();
});

function takeStill() {
  state.still = true;
  sendView('view');
}

// --- controls --------------------------------------------------------------------------------

$('drive').addEventListener('click', () => send({ type: 'drive' }));
$('quality').addEventListener('input', (event) => {
  state.quality = Number(event.target.value);
  $('quality-value').textContent = state.quality;
  sendView('view');
});
$('still').addEventListener('click', takeStill);
$('play').addEventListener('click', () => queueInput({ kind: 'key', key: ' ' }));
$('step').addEventListener('click', () => queueInput({ kind: 'key', key: 'ArrowRight' }));
$('step-back').addEventListener('click', () => queueInput({ kind: 'key', key: 'ArrowLeft' }));
$('timeline').addEventListener('input', (event) => {
  if (driving()) send({ type: 'command', name: 'seek', args: { frame: Number(event.target.value) } });
});

let resizeTimer = 0;
new ResizeObserver(() => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => sendView('view'), 100);
}).observe(canvas);

setInterval(() => send({ type: 'ping', sent: performance.now() }), 2000);

// --- stats -----------------------------------------------------------------------------------

function onText(message) {
  if (message.type === 'welcome') {
    state.client = message.client;
    $('app').textContent = `${message.app} ${message.version}`;
    document.title = `${message.app} — tandem`;
  } else if (message.type === 'pong') {
    $('rtt').textContent = (performance.now() - message.sent).toFixed(1);
  } else if (message.type === 'stats') {
    showStats(message);
  } else if (message.type === 'error') {
    banner(message.message);
    setTimeout(() => banner(''), 4000);
  } else if (message.type === 'download') {
    download(new Blob([message.text], { type: 'application/json' }), message.name);
  }
}

function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

function cell(row, text, numeric) {
  const element = row.insertCell();
  element.textContent = text;
  if (numeric) element.className = 'num';
}

function showStats(stats) {
  state.driver = stats.driver;
  $('role').textContent = driving() ? 'driving' : `watching (client ${state.driver} drives)`;
  $('drive').hidden = driving();
  const now = performance.now();
  state.frames = state.frames.filter((t) => now - t < 1000);
  $('fps').textContent = state.frames.length;
  $('bytes').textContent = (state.bytes / 1024).toFixed(0);
  state.latencies = state.latencies.slice(-100);
  if (state.latencies.length > 0)
    $('latency').textContent = `${median(state.latencies).toFixed(1)} (p95 ${percentile(state.latencies, 0.95).toFixed(1)})`;
  $('render-fps').textContent = stats.fps ? stats.fps.toFixed(0) : '-';
  // The server's encoding: a frame's wall time over its bands, and where its colours converted.
  const serve = stats.serve || {};
  if (typeof serve.encode_ms_p50 === 'number')
    $('encode').textContent = `${serve.encode_ms_p50.toFixed(2)} (${serve.encode_bands} ` +
      `band${serve.encode_bands === 1 ? '' : 's'}` +
      `${serve.frames_read_as_planes > 0 ? ', YCbCr from CUDA' : ''})`;

  const body = $('stages').tBodies[0];
  body.replaceChildren();
  for (const [where, stages] of [['gpu', stats.gpu || []], ['cpu', stats.cpu || []]]) {
    for (const stage of stages) {
      const row = body.insertRow();
      row.dataset.stage = stage.name;
      cell(row, stage.name);
      cell(row, where);
      cell(row, stage.last.toFixed(3), true);
      cell(row, stage.p50.toFixed(3), true);
      cell(row, stage.p95.toFixed(3), true);
    }
  }
  if (stats.frame_ms) drawPlot(stats.frame_ms);

  const app = stats.app || {};
  if (app.timeline) {
    const timeline = app.timeline;
    $('playback').hidden = false;
    const slider = $('timeline');
    slider.max = Math.max(0, timeline.frames - 1);
    if (document.activeElement !== slider) slider.value = timeline.frame;
    $('frame-number').textContent = timeline.frame;
    $('frame-count').textContent = timeline.frames;
    $('frame-time').textContent = (timeline.seconds || 0).toFixed(2);
    $('speed').textContent = timeline.speed;
    $('play').textContent = timeline.playing ? 'Pause' : 'Play';
  }
  if (app.health) {
    $('health').hidden = false;
    const table = $('health-table');
    table.replaceChildren();
    for (const [name, value] of Object.entries(app.health)) {
      const row = table.insertRow();
      cell(row, name);
      cell(row, String(value), true);
    }
  }
  if (stats.chain) showChain(stats.chain);
  const warnings = app.warnings || [];
  $('warnings').hidden = warnings.length === 0;
  $('warning-list').replaceChildren(...warnings.map((text) => {
    const item = document.createElement('li');
    item.textContent = text;
    return item;
  }));
}

// The post-process chain: a stage's switch and its parameters' sliders, rebuilt only when the
// chain's stages change; a slider being dragged keeps its value.
let chainShape = '';
function showChain(chain) {
  const section = $('chain');
  section.hidden = chain.length === 0;
  const shape = JSON.stringify(chain.map((s) => [s.name, s.params.map((p) => p.name)]));
  const holder = $('chain-stages');
  if (shape !== chainShape) {
    chainShape = shape;
    holder.replaceChildren();
    chain.forEach((stage, index) => {
      const box = document.createElement('div');
      box.className = 'stage';
      const title = document.createElement('label');
      title.title = stage.help;
      const enabled = document.createElement('input');
      enabled.type = 'checkbox';
      enabled.dataset.stage = index;
      enabled.addEventListener('change', () => {
        if (driving()) send({ type: 'command', name: 'postfx', args: { stage: index, enabled: enabled.checked } });
      });
      title.append(enabled, ` ${stage.name}`);
      box.append(title);
      for (const param of stage.params) {
        const label = document.createElement('label');
        label.title = param.help;
        const slider = document.createElement('input');
        slider.type = 'range';
        slider.min = param.min;
        slider.max = param.max;
        slider.step = param.integer ? 1 : (param.max - param.min) / 200;
        slider.dataset.stage = index;
        slider.dataset.param = param.name;
        const value = document.createElement('output');
        slider.addEventListener('input', () => {
          value.textContent = Number(slider.value).toFixed(param.integer ? 0 : 2);
          if (driving()) send({ type: 'command', name: 'postfx', args: { stage: index, param: param.name, value: Number(slider.value) } });
        });
        label.append(`${param.name} `, slider, ' ', value);
        box.append(label);
      }
      holder.append(box);
    });
  }
  chain.forEach((stage, index) => {
    const enabled = holder.querySelector(`input[type=checkbox][data-stage="${index}"]`);
    if (enabled) enabled.checked = stage.enabled;
    for (const param of stage.params) {
      const slider = holder.querySelector(`input[type=range][data-stage="${index}"][data-param="${param.name}"]`);
      if (!slider || document.activeElement === slider) continue;
      slider.value = param.value;
      slider.nextElementSibling.textContent = Number(param.value).toFixed(param.integer ? 0 : 2);
    }
  });
}

function drawPlot(frameMs) {
  const plot = $('plot');
  const g = plot.getContext('2d');
  g.fillStyle = '#151515';
  g.fillRect(0, 0, plot.width, plot.height);
  const top = Math.max(16.7, ...frameMs) * 1.1;
  for (const line of [16.7, 33.3]) {
    if (line > top) continue;
    const y = plot.height - line / top * plot.height;
    g.strokeStyle = '#444';
    g.beginPath(); g.moveTo(0, y); g.lineTo(plot.width, y); g.stroke();
    g.fillStyle = '#777';
    g.fillText(String(line), 2, y - 2);
  }
  g.strokeStyle = '#6c6';
  g.beginPath();
  frameMs.forEach((ms, i) => {
    const x = i / Math.max(1, frameMs.length - 1) * plot.width;
    const y = plot.height - ms / top * plot.height;
    if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
  });
  g.stroke();
}

connect();
