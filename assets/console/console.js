// The console's only script of its own (the CSP allows no inline script): it reports errors of
// the page to the server's frontend error log, at most 10 a page.
(() => {
  let sent = 0;
  const report = (message, stack) => {
    if (sent >= 10) return;
    sent += 1;
    const body = {
      source: 'browser',
      severity: 'medium',
      message: String(message || 'Unknown error').slice(0, 2048),
      stack: stack ? String(stack).slice(0, 8192) : undefined,
      url: location.href,
      userAgent: navigator.userAgent.slice(0, 512),
    };
    fetch('/api/log/frontend-error', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      keepalive: true,
    }).catch(() => undefined);
  };
  window.addEventListener('error', (e) => report(e.message, e.error && e.error.stack));
  window.addEventListener('unhandledrejection', (e) => {
    const reason = e.reason;
    report(reason && reason.message ? reason.message : reason, reason && reason.stack);
  });
})();
