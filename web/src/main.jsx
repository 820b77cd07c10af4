// main.jsx - the application shell: header, the view chosen by the path,
// the token dialog.
import { render } from 'preact';
import { useLocation, Link } from './router.jsx';
import { TokenDialog } from './TokenDialog.jsx';
import { Sweeps } from './Sweeps.jsx';
import { Sweep } from './Sweep.jsx';
import './style.css';

function NotFound({ path }) {
  return <main><h1>Not found</h1><p>No view at <code>{path}</code>. <Link href="/">Sweeps</Link></p></main>;
}

function App() {
  const { path, query } = useLocation();
  let view;
  let m;
  if (path === '/' || path === '/sweeps' || path === '/sweeps/') view = <Sweeps query={query} />;
  else if ((m = path.match(/^\/sweeps\/([0-9a-fA-F-]{36})\/?$/))) view = <Sweep id={m[1].toLowerCase()} query={query} />;
  else view = <NotFound path={path} />;
  return (
    <>
      <header class="top">
        <Link href="/" class="brand">mbsweep</Link>
        <nav aria-label="Views"><Link href="/">Sweeps</Link></nav>
      </header>
      {view}
      <TokenDialog />
    </>
  );
}

render(<App />, document.getElementById('app'));
