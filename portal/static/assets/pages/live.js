// The live view of the user's browser session: /portal/browser/live?t=<token>[&integration=<name>[&account=<label>]].
// Frames come down as server-sent events (CDP screencast JPEGs), input goes up in small batches of
// commands; both carry the signed token of the link, and the server also checks that this browser's
// portal session is the session's owner. While this page is open the person drives the browser and the
// agent's browser tools answer HUMAN_IN_CONTROL; "Give control back" (or leaving the page) ends that.
// With ?integration= (a cookie integration's connect link) "Capture now" stores that integration's
// cookies once the person has signed in to it here, as the account &account= names (the default one
// without it); the page is titled with the integration's display name, and the browser was sent to its
// sign-in page by the link's maker (api.liveURL(name, true)).
//
// A link the server refuses stops the page: before streaming, and whenever the stream is refused, the
// page asks /live/check, and a 400 (a forged, malformed or expired link that this page never opened),
// 403 (another account's) or 401 (signed out) ends it with the server's reason and a way back, never
// an endless "Reconnecting…". A banner says who is in control, the person or the agent; Back, Forward
// and Reload drive the browser's history.

import { api, request } from '../api.js';
import { h, replace, notice, errorText, button, busy, confirmDialog, pageHeader } from '../dom.js';

export const title = 'Live browser';

// NAMED_KEYS are the keys sent by name; any other single character is typed as text.
const NAMED_KEYS = new Set(['Enter', 'Tab', 'Backspace', 'Escape', 'Delete', 'ArrowLeft', 'ArrowUp', 'ArrowRight', 'ArrowDown', 'Home', 'End', 'PageUp', 'PageDown']);

export async function render(ctx, main) {
  const params = new URLSearchParams(location.search);
  let token = params.get('t') || '';
  const integration = params.get('integration') || '';
  // &account=<label>: the account of the integration the capture stores (none: the default account).
  const account = params.get('account') || '';
  let q = '?t=' + encodeURIComponent(token);
  // A live link is short-lived. Once it has opened this person's own browser (the server checked it
  // against their session), an expired one is replaced by a fresh link minted for the same session.
  let opened = false;
  const renew = async () => {
    const minted = await api.liveURL(integration);
    const u = new URL(minted.url, location.href);
    token = u.searchParams.get('t') || '';
    q = '?t=' + encodeURIComponent(token);
    if (account) u.searchParams.set('account', account);
    history.replaceState(null, '', u.pathname + u.search);
  };
  // live sends a request of the view, renewing the link once if it has expired.
  const live = async (path, body) => {
    try {
      return await request('POST', path + q, body);
    } catch (err) {
      if (err.code !== 'INVALID_LINK' || !opened) throw err;
      await renew();
      return request('POST', path + q, body);
    }
  };
  const status = h('div', { class: 'live-status', 'data-testid': 'live-status' });
  // stop ends the page with why, and ways back.
  const stop = (titleText, why) => {
    replace(main, pageHeader('Live browser'), h('div', { 'data-testid': 'live-stopped' },
      notice('error', titleText, why),
      h('p', {}, h('a', { href: integration ? '/integrations' : '/', 'data-link': true, class: 'btn btn-secondary', 'data-testid': 'live-back-link' },
        integration ? 'Back to Integrations' : 'Back to Workbench'))));
  };
  if (!token) {
    stop('This link is incomplete', 'Open the whole link you were given, or ask your agent for a new one.');
    return;
  }
  // refused says whether the server refuses this link for good, and if so stops the page.
  const refused = async () => {
    try {
      await request('GET', '/api/browser-session/live/check' + q);
      return false;
    } catch (err) {
      if (err.status === 401) { ctx.fail(status, err); return true; }
      if (err.status === 400 || err.status === 403 || err.status === 410) {
        if (ctx.current()) {
          // The server's reason, as a sentence.
          let why = errorText(err);
          why = why.charAt(0).toUpperCase() + why.slice(1) + (/[.!?]$/.test(why) ? '' : '.');
          stop(err.status === 403 ? 'This live view is not yours' : 'This live view link cannot be opened',
            `${why} Ask your agent for a new link${integration ? ', or start the sign-in again from Integrations' : ''}.`);
        }
        return true;
      }
      return false; // busy or unreachable: worth another try
    }
  };
  if (await refused()) return;
  if (!ctx.current()) return;
  // The integration's display name (the link carries only its name).
  let shown = integration;
  if (integration) {
    try {
      const found = (((await api.integrations()) || {}).integrations || []).find((i) => i.name === integration);
      if (found && found.display_name) shown = found.display_name;
    } catch { /* the name is shown instead */ }
    if (!ctx.current()) return;
    document.title = `Sign in to ${shown} · Workbench`;
  }

  const urlInput = h('input', { type: 'text', class: 'live-url', 'aria-label': 'Address', spellcheck: 'false', 'data-testid': 'live-url' });
  const screen = h('img', { class: 'live-screen', alt: 'The live browser', tabindex: '0', draggable: 'false', 'data-testid': 'live-screen' });
  const control = button('Give control back', { testid: 'live-control' });
  const back = button('Back', { testid: 'live-back' });
  const forward = button('Forward', { testid: 'live-forward' });
  const reload = button('Reload', { testid: 'live-reload' });
  const controller = h('div', { class: 'live-controller', role: 'status', 'data-testid': 'live-controller' });
  const waiting = h('p', { class: 'muted live-waiting', 'data-testid': 'live-waiting' }, 'Waiting for the browser…');
  screen.hidden = true;
  const reset = button('Reset browser', { kind: 'danger-outline', testid: 'live-reset' });
  const capture = integration ? button('Capture now', { kind: 'primary', testid: 'live-capture' }) : null;
  const form = h('form', { class: 'live-bar' }, back, forward, reload, urlInput, button('Go', { type: 'submit', testid: 'live-go' }));
  replace(main,
    pageHeader(integration ? `Sign in to ${shown}` : 'Live browser', integration
      ? `Sign in to ${shown} below, then press "Capture now": Workbench keeps that site's cookies, sealed, for your agent's ${shown} tools.`
      : 'Your agent\'s browser, live. While you drive it, the agent waits.', control, reset, capture),
    controller, status, h('div', { class: 'card live' }, form, waiting, screen));

  let human = true;
  let size = { width: 1280, height: 800 };
  let queue = [];
  let timer = null;

  const showControl = () => {
    control.querySelector('span').textContent = human ? 'Give control back' : 'Take control';
    screen.classList.toggle('live-readonly', !human);
    controller.dataset.who = human ? 'you' : 'agent';
    controller.className = `live-controller live-controller-${human ? 'you' : 'agent'}`;
    replace(controller, human ? h('strong', {}, 'You are in control.') : h('strong', {}, 'Your agent is in control.'),
      ' ', human ? 'The agent waits until you give control back.' : 'You are watching; take control to drive.');
  };
  showControl();

  // Input goes up in batches, one request at a time, so the browser gets it in the order it was made
  // (a click that focuses a field before the keys typed into it).
  let sending = false;
  const flush = async () => {
    timer = null;
    if (sending || !queue.length) return;
    sending = true;
    const commands = queue;
    queue = [];
    try {
      const st = await live('/api/browser-session/live/input', { commands });
      if (st && st.url && document.activeElement !== urlInput) urlInput.value = st.url;
    } catch (err) {
      replace(status, notice('error', 'The browser did not take that', errorText(err)));
    } finally {
      sending = false;
      if (queue.length && !timer) timer = setTimeout(flush, 0);
    }
  };
  const send = (cmd) => {
    if (!human) return;
    queue.push(cmd);
    if (!timer) timer = setTimeout(flush, 40);
  };
  // at maps a pointer event on the screen to the session's viewport: the frame is drawn scaled to fit
  // (object-fit: contain), centred, so the bars around it are not part of the page.
  const at = (e) => {
    const r = screen.getBoundingClientRect();
    const scale = Math.min(r.width / size.width, r.height / size.height) || 1;
    const left = r.left + (r.width - size.width * scale) / 2;
    const top = r.top + (r.height - size.height * scale) / 2;
    const clamp = (v, max) => Math.min(Math.max(0, v), max);
    return { x: clamp((e.clientX - left) / scale, size.width), y: clamp((e.clientY - top) / scale, size.height) };
  };

  screen.addEventListener('click', (e) => { screen.focus(); send({ type: 'click', ...at(e) }); });
  screen.addEventListener('wheel', (e) => { e.preventDefault(); send({ type: 'wheel', ...at(e), dx: e.deltaX, dy: e.deltaY }); }, { passive: false });
  screen.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (NAMED_KEYS.has(e.key)) send({ type: 'key', key: e.key });
    else if (e.key.length === 1) send({ type: 'text', text: e.key });
    else return;
    e.preventDefault();
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    let u = urlInput.value.trim();
    if (u && !/^https?:\/\//i.test(u)) u = 'https://' + u;
    if (u) send({ type: 'navigate', url: u });
  });
  back.addEventListener('click', () => send({ type: 'back' }));
  forward.addEventListener('click', () => send({ type: 'forward' }));
  reload.addEventListener('click', () => send({ type: 'reload' }));

  control.addEventListener('click', () => busy(control, async () => {
    try {
      const res = await live('/api/browser-session/live/control', { human: !human });
      human = res.human;
      showControl();
      replace(status, human ? notice('info', 'You are driving', 'The agent waits until you give control back.')
        : notice('success', 'Control is back with the agent', 'You are watching. Take control to drive again.'));
    } catch (err) { ctx.fail(status, err, 'Control did not change'); }
  }));
  reset.addEventListener('click', async () => {
    const ok = await confirmDialog({
      title: 'Reset the browser?',
      body: [h('p', {}, 'The browser is closed and its profile wiped: every site you are signed in to there is signed out.')],
      confirmLabel: 'Reset',
    });
    if (!ok) return;
    await busy(reset, async () => {
      try {
        await request('POST', '/api/browser-session/reset');
        replace(status, notice('success', 'The browser was reset', 'It starts again, empty, in a moment.'));
      } catch (err) {
        if (err.code !== 'BROWSER_SESSION_BUSY') { ctx.fail(status, err, 'The browser was not reset'); return; }
        // This view (and perhaps a tool call of the agent) holds the browser: the reset waits for it to
        // be let go. Let go, and come back once the browser has restarted.
        disconnect();
        replace(status, notice('info', 'Resetting the browser', 'It restarts, empty, as soon as nothing else is using it.'));
        retry(1000);
      }
    });
  });
  if (capture) {
    capture.addEventListener('click', () => busy(capture, async () => {
      try {
        const res = await request('POST', '/api/browser-session/capture', account ? { integration, account } : { integration });
        replace(status, notice('success', account ? `${integration} account “${account}” is connected` : `${integration} is connected`, `Workbench stored ${res.cookies} cookie${res.cookies === 1 ? '' : 's'}` +
          (res.expires_at ? `, usable until ${new Date(res.expires_at).toLocaleString()}.` : '.') + ' Your agent can use it now.'));
      } catch (err) { ctx.fail(status, err, 'Nothing was captured'); }
    }));
  }

  // The stream: reconnected by hand, since a refused stream (the browser starting or being reset, 409)
  // is closed for good by EventSource.
  let events = null;
  let pending = null;
  let interrupted = false;
  const disconnect = () => { if (events) { events.close(); events = null; } clearTimeout(pending); };
  const retry = (ms) => { clearTimeout(pending); pending = setTimeout(() => { if (ctx.current()) connect(); }, ms); };
  const connect = () => {
    disconnect();
    const es = new EventSource('/api/browser-session/live/stream' + q);
    events = es;
    es.addEventListener('state', (e) => {
      const st = JSON.parse(e.data);
      const was = human;
      human = !!st.human;
      showControl();
      // The agent took control back (browser_live_url take_back) while the person drove.
      if (was && !human) replace(status, notice('info', 'The agent took control back', 'You are watching. Take control to drive again.'));
      if (document.activeElement !== urlInput) urlInput.value = st.url || '';
      urlInput.dataset.loading = st.loading ? 'true' : 'false';
      screen.setAttribute('aria-busy', st.loading ? 'true' : 'false');
    });
    es.addEventListener('frame', (e) => {
      const f = JSON.parse(e.data);
      if (f.width && f.height) size = { width: f.width, height: f.height };
      screen.src = 'data:image/jpeg;base64,' + f.data;
      if (screen.hidden) { screen.hidden = false; waiting.remove(); }
      screen.dataset.frames = String(Number(screen.dataset.frames || 0) + 1);
    });
    es.addEventListener('open', () => {
      opened = true;
      if (interrupted && ctx.current()) replace(status);
      interrupted = false;
    });
    es.addEventListener('error', () => {
      if (!ctx.current() || events !== es) return;
      if (!interrupted) {
        interrupted = true;
        replace(status, notice('warning', 'The stream was interrupted', 'Reconnecting… If this lasts, the link may have expired: ask your agent for a new one.'));
      }
      if (es.readyState !== EventSource.CLOSED) return;
      // Refused: the browser is starting or being reset, or the link has expired. A fresh link is asked
      // for (it also answers BUSY while the browser is not ready); failing that, try again shortly.
      if (opened) {
        renew().then(() => retry(0), () => retry(2000));
        return;
      }
      // Never opened: the link may be refused for good (a forged or expired one) — then stop.
      disconnect();
      refused().then((gone) => { if (!gone) retry(2000); });
    });
  };
  connect();
  // The stream ends when the person leaves the page (the router gives pages no teardown, so it is
  // checked); the server then gives control back to the agent.
  const watch = setInterval(() => {
    if (!ctx.current()) { disconnect(); clearInterval(watch); }
  }, 500);
  addEventListener('pagehide', disconnect, { once: true });
}
