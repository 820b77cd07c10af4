// router.js - every view's state lives in the URL: the path names the view
// (/ or /sweeps: the sweeps; /sweeps/<id>: a sweep), the query string holds
// the rest (sort, filters, brushes, ...), so any view is a link.
import { useEffect, useState } from 'preact/hooks';

const s_subs = new Set();
function s_notify() { for (const f of s_subs) f(); }
window.addEventListener('popstate', s_notify);

export function useLocation() {
  const [, setTick] = useState(0);
  useEffect(() => {
    const f = () => setTick((t) => t + 1);
    s_subs.add(f);
    return () => s_subs.delete(f);
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

// A new view: a history entry.
export function navigate(url) {
  history.pushState(null, '', url);
  s_notify();
  window.scrollTo(0, 0);
}

// The same view, other state: replaces the entry (typing a filter does not
// fill the history).  params: {key: value | array | null}; null removes.
export function setQuery(params, { push = false } = {}) {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(params)) {
    q.delete(k);
    if (v === null || v === undefined || v === '') continue;
    if (Array.isArray(v)) v.forEach((x) => q.append(k, x)); else q.set(k, String(v));
  }
  const s = q.toString();
  const url = location.pathname + (s ? `?${s}` : '');
  if (url === location.pathname + location.search) return;
  if (push) history.pushState(null, '', url); else history.replaceState(null, '', url);
  s_notify();
}

// <a> that navigates inside the page (ctrl/middle click still open a tab).
export function Link({ href, children, ...rest }) {
  const onClick = (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={onClick} {...rest}>{children}</a>;
}
