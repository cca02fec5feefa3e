// The phone simulator in the browser (served at /ussd/simulator, bundled by simulator-router.ts). It talks
// to POST /api/ussd exactly as a telecom gateway does: a new session id per dial, the accumulated `text`
// (inputs joined with `*`), CON keeps the session, END closes it. After each CON reply it asks the
// operator endpoint /api/ussd/debug/:sessionId which screen the session is on and highlights it on the menu
// map; after an END it names the end node whose text the reply is.

interface SimulatorConfig {
  serviceCode: string;
  ends: Record<string, string[]>;
  goodbye: string[];
  /** Under `npm run dev`: why the last change to the menus was refused. */
  problem?: string;
  /** Under `npm run dev`: which tree is served. */
  version?: number;
}

interface Session {
  id: string;
  inputs: string[];
  ended: boolean;
}

const $ = <T extends Element>(selector: string): T => {
  const el = document.querySelector<T>(selector);
  if (!el) throw new Error(`missing ${selector}`);
  return el;
};

const screen = $<HTMLPreElement>('[data-testid=screen]');
const stateLabel = $<HTMLSpanElement>('[data-testid=state]');
const replyForm = $<HTMLFormElement>('[data-testid=reply-form]');
const reply = $<HTMLInputElement>('[data-testid=reply]');
const settings = $<HTMLFormElement>('[data-testid=settings]');
const map = $<HTMLDivElement>('[data-testid=map]');
const where = $<HTMLSpanElement>('[data-testid=current-node]');
const log = $<HTMLOListElement>('[data-testid=log]');
const sendButton = $<HTMLButtonElement>('[data-testid=send]');
const menusProblem = $<HTMLPreElement>('[data-testid=menus-problem]');

let config: SimulatorConfig = { serviceCode: '*384*123#', ends: {}, goodbye: [] };
let session: Session | undefined;
let busy = false;

const field = (name: string): string =>
  (settings.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null)?.value.trim() ?? '';

function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `web-${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function show(text: string, kind: 'hint' | 'CON' | 'END'): void {
  screen.textContent = text;
  screen.className = `screen-text${kind === 'hint' ? ' hint' : kind === 'END' ? ' ended' : ''}`;
}

function idle(): void {
  session = undefined;
  show(`Dial ${field('serviceCode') || config.serviceCode}\nand press the green key.`, 'hint');
  stateLabel.textContent = 'idle';
  reply.value = field('serviceCode') || config.serviceCode;
  reply.placeholder = 'Service code';
  sendButton.textContent = 'Dial';
  highlight(undefined, 'no session');
}

function highlight(node: string | undefined, label: string): void {
  for (const el of map.querySelectorAll('.current')) el.classList.remove('current');
  where.textContent = label;
  if (node === undefined) return;
  const box = map.querySelector(`[data-node="${CSS.escape(node)}"]`);
  if (!box) return;
  box.classList.add('current');
  // Bring the box into the map's view (not the whole page): near the left edge, so the screens it leads
  // to show on its right, and in the middle vertically.
  const boxRect = box.getBoundingClientRect();
  const mapRect = map.getBoundingClientRect();
  map.scrollBy({
    left: boxRect.left - mapRect.left - 24,
    top: boxRect.top + boxRect.height / 2 - (mapRect.top + mapRect.height / 2),
  });
}

function addLog(entry: { text: string; sessionId: string; reply: string; ms: number; status: number }): void {
  const li = document.createElement('li');
  li.dataset['testid'] = 'log-entry';
  const kind = entry.reply.slice(0, 3);
  const meta = document.createElement('div');
  meta.className = 'meta';
  const left = document.createElement('span');
  left.textContent = `POST /api/ussd · ${entry.sessionId}`;
  const right = document.createElement('span');
  right.textContent = `HTTP ${entry.status} · ${entry.ms} ms`;
  meta.append(left, right);
  const request = document.createElement('div');
  request.className = 'request';
  request.textContent = `text=${JSON.stringify(entry.text)}`;
  const body = document.createElement('pre');
  const tag = document.createElement('span');
  tag.className = `kind ${kind}`;
  tag.textContent = kind;
  body.append(tag, document.createTextNode(entry.reply.slice(3)));
  li.append(meta, request, body);
  log.prepend(li);
}

/** The end node whose text `text` is (any language; a {placeholder} matches anything). */
function endNode(text: string): string | undefined {
  const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const [id, texts] of Object.entries(config.ends)) {
    for (const t of texts) {
      const pattern = t
        .split(/\{[a-zA-Z0-9]+\}/)
        .map(escape)
        .join('.*');
      if (new RegExp(`^${pattern}$`, 's').test(text)) return id;
    }
  }
  return undefined;
}

async function locate(current: Session, kind: string, text: string): Promise<void> {
  if (kind === 'END') {
    const end = endNode(text);
    highlight(end, end ?? (config.goodbye.includes(text) ? 'ended (*)' : 'ended'));
    return;
  }
  const token = field('token');
  try {
    const res = await fetch(`/api/ussd/debug/${encodeURIComponent(current.id)}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    if (res.status !== 200) {
      highlight(undefined, res.status === 401 ? 'set the operator token' : 'screen unknown');
      return;
    }
    const body = (await res.json()) as { debugInfo: { state: string } };
    if (session === current) highlight(body.debugInfo.state, body.debugInfo.state);
  } catch {
    highlight(undefined, 'screen unknown');
  }
}

async function post(current: Session): Promise<void> {
  const fields = {
    sessionId: current.id,
    serviceCode: field('serviceCode'),
    phoneNumber: field('phoneNumber'),
    text: current.inputs.join('*'),
  };
  const form = field('format') === 'form';
  busy = true;
  stateLabel.textContent = 'sending…';
  const started = performance.now();
  try {
    const res = await fetch('/api/ussd', {
      method: 'POST',
      headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
      body: form ? new URLSearchParams(fields).toString() : JSON.stringify(fields),
    });
    const text = await res.text();
    addLog({
      text: fields.text,
      sessionId: current.id,
      reply: text,
      ms: Math.round(performance.now() - started),
      status: res.status,
    });
    if (res.status !== 200) {
      // A gateway ends the session on anything but 200 (the rate limit's 429, for one).
      current.ended = true;
      show(`HTTP ${res.status}\n${text}`, 'END');
      sendButton.textContent = 'OK';
      stateLabel.textContent = `HTTP ${res.status}`;
      return;
    }
    const kind = text.slice(0, 3);
    const body = text.slice(4);
    show(body, kind === 'END' ? 'END' : 'CON');
    if (kind === 'END') {
      current.ended = true;
      stateLabel.textContent = 'END · session closed';
      reply.value = '';
      reply.placeholder = 'OK, then dial again';
      sendButton.textContent = 'OK';
    } else {
      stateLabel.textContent = `CON · ${current.inputs.length} input${current.inputs.length === 1 ? '' : 's'}`;
      reply.placeholder = 'Reply';
      sendButton.textContent = 'Send';
    }
    await locate(current, kind, body);
  } catch (err) {
    show(`No answer from the gateway:\n${String(err)}`, 'END');
    current.ended = true;
  } finally {
    busy = false;
    reply.focus();
  }
}

async function dial(): Promise<void> {
  const code = reply.value.trim() || field('serviceCode');
  (settings.elements.namedItem('serviceCode') as HTMLInputElement).value = code;
  session = { id: newSessionId(), inputs: [], ended: false };
  reply.value = '';
  await post(session);
}

async function submit(): Promise<void> {
  if (busy) return;
  if (session === undefined) {
    await dial();
    return;
  }
  if (session.ended) {
    idle();
    return;
  }
  const value = reply.value;
  if (value === '') return;
  reply.value = '';
  session.inputs.push(value);
  await post(session);
}

replyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  void submit();
});
$('[data-testid=call]').addEventListener('click', () => void submit());
$('[data-testid=cancel]').addEventListener('click', () => idle());
$('[data-testid=hangup]').addEventListener('click', () => idle());
$('[data-testid=delete]').addEventListener('click', () => {
  reply.value = reply.value.slice(0, -1);
  reply.focus();
});
for (const key of document.querySelectorAll<HTMLButtonElement>('[data-key]')) {
  key.addEventListener('click', () => {
    reply.value += key.dataset['key'] ?? '';
    reply.focus();
  });
}
$('[data-testid=clear-log]').addEventListener('click', () => log.replaceChildren());
const fit = $<HTMLButtonElement>('[data-testid=fit-map]');
fit.addEventListener('click', () => {
  const fitted = map.classList.toggle('fit');
  fit.textContent = fitted ? 'actual size' : 'fit to width';
});
settings.addEventListener('submit', (event) => event.preventDefault());

async function start(): Promise<void> {
  const [cfg, svg] = await Promise.all([
    fetch('/ussd/simulator/config.json').then((r) => r.json() as Promise<SimulatorConfig>),
    fetch('/ussd/simulator/menu-map.svg').then((r) => r.text()),
  ]);
  config = cfg;
  // The map is the server's own generated file (generated/menu-map.svg), not user input.
  map.innerHTML = svg;
  showProblem(cfg.problem);
  idle();
  document.body.dataset['ready'] = 'true';
  if (cfg.version !== undefined) setInterval(() => void follow(), 1500);
}

/** The generator's message when the menus were refused; the last good menus keep serving. */
function showProblem(problem: string | undefined): void {
  menusProblem.hidden = problem === undefined;
  menusProblem.textContent =
    problem === undefined ? '' : `The menus were not reloaded (the last good ones still serve):\n${problem}`;
}

/** Under `npm run dev`: a new tree brings its map and ends; a refused one its problem. */
async function follow(): Promise<void> {
  const cfg = (await fetch('/ussd/simulator/config.json').then((r) => r.json())) as SimulatorConfig;
  showProblem(cfg.problem);
  if (cfg.version === config.version) return;
  config = cfg;
  map.innerHTML = await fetch('/ussd/simulator/menu-map.svg').then((r) => r.text());
}

void start();
