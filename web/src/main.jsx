// main.jsx - the application shell: header, the view chosen by the path,
// the token dialog.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation, Link } from './router.jsx';
import { TokenDialog } from './TokenDialog.jsx';
import { Sweeps } from './Sweeps.jsx';
import { Sweep } from './Sweep.jsx';
import { Compare } from './Compare.jsx';
import './style.css';

// The job view brings uPlot: a chunk of its own, loaded when first shown.
let s_job = null;
function LazyJob(props) {
  const [View, setView] = useState(() => s_job);
  const [err, setErr] = useState(null);
  useEffect(() => {
    if (!View) import('./Job.jsx').then((m) => { s_job = m.Job; setView(() => m.Job); }).catch((e) => setErr(e.message));
  }, []);
  if (err) return <main><p class="error" role="alert">Cannot load the job view: {err}</p></main>;
  return View ? <View {...props} /> : <main><p>Loading…</p></main>;
}

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
  else view = <NotFound path={path} />;
  return (
    <>
      <header class="top">
        <Link href="/" class="brand">mbsweep</Link>
        <nav aria-label="Views"><Link href="/">Sweeps</Link><Link href="/compare">Contact deactivation</Link></nav>
      </header>
      {view}
      <TokenDialog />
    </>
  );
}

render(<App />, document.getElementById('app'));
