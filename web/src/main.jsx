// main.jsx - the application shell: header, the view chosen by the path,
// the token dialog.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation, Link } from './router.jsx';
import { TokenDialog } from './TokenDialog.jsx';
import { Sweeps } from './Sweeps.jsx';
import { Sweep } from './Sweep.jsx';
import { Compare } from './Compare.jsx';
import { Models } from './Models.jsx';
import './style.css';

// The job view (uPlot) and a model's page (the drawing, the sweep form) are
// chunks of their own, loaded when first shown; three.js is loaded only by a
// spatial drawing (Anim.jsx).
function lazyView(load, what) {
  let loaded = null;
  return function Lazy(props) {
    const [View, setView] = useState(() => loaded);
    const [err, setErr] = useState(null);
    useEffect(() => {
      if (!View) load().then((V) => { loaded = V; setView(() => V); }).catch((e) => setErr(e.message));
    }, []);
    if (err) return <main><p class="error" role="alert">Cannot load the {what}: {err}</p></main>;
    return View ? <View {...props} /> : <main><p>Loading…</p></main>;
  };
}
const LazyJob = lazyView(() => import('./Job.jsx').then((m) => m.Job), 'job view');
const LazyModel = lazyView(() => import('./Model.jsx').then((m) => m.Model), 'model view');

function NotFound({ path }) {
  return <main><h1>Not found</h1><p>No view at <code>{path}</code>. <Link href="/">Sweeps</Link></p></main>;
}

function App() {
  const { path, query } = useLocation();
  let view;
  let m;
  if (path === '/' || path === '/sweeps' || path === '/sweeps/') view = <Sweeps query={query} />;
  else if ((m = path.match(/^\/sweeps\/([0-9a-fA-F-]{36})\/?$/))) view = <Sweep id={m[1].toLowerCase()} query={query} />;
  else if (path === '/compare' || path === '/compare/') view = <Compare query={query} />;
  else if ((m = path.match(/^\/jobs\/(\d{1,18})\/?$/))) view = <LazyJob id={m[1]} query={query} />;
  else if (path === '/models' || path === '/models/') view = <Models query={query} />;
  else if ((m = path.match(/^\/models\/([0-9a-f]{16})\/?$/))) view = <LazyModel id={m[1]} query={query} />;
  else view = <NotFound path={path} />;
  return (
    <>
      <header class="top">
        <Link href="/" class="brand">mbsweep</Link>
        <nav aria-label="Views"><Link href="/">Sweeps</Link><Link href="/models">Models</Link><Link href="/compare" title="Paired runs compared across models: contact deactivation on and off, the two formulations, two integrators">Comparisons</Link></nav>
      </header>
      {view}
      <TokenDialog />
    </>
  );
}

render(<App />, document.getElementById('app'));
