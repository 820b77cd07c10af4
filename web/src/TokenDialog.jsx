// TokenDialog.jsx - asks for the API token once (api.js keeps it in
// localStorage); shown when a write needs it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { onTokenRequest, setToken, getToken } from './api.js';

export function TokenDialog() {
  const [req, setReq] = useState(null);
  const ref = useRef(null);
  const input = useRef(null);
  useEffect(() => onTokenRequest(setReq), []);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (req && !d.open) { d.showModal(); input.current && input.current.focus(); }
    if (!req && d.open) d.close();
  }, [req]);
  // the dialog closes at once, not at the next render's effect: until it is
  // closed it is modal and the page under it inert, so what is typed right
  // after Save would be lost
  const finish = (value) => {
    const r = req;
    if (ref.current && ref.current.open) ref.current.close();
    setReq(null);
    if (r) r.resolve(value);
  };
  const submit = (e) => { e.preventDefault(); const v = input.current.value.trim(); input.current.value = ''; finish(v || null); };
  return (
    <dialog ref={ref} id="token-dialog" aria-labelledby="token-title" onCancel={(e) => { e.preventDefault(); finish(null); }}>
      <form onSubmit={submit}>
        <h2 id="token-title">API token</h2>
        <p>Changes (pausing, resuming, cancelling, uploading a model, counting and submitting a sweep) need the gateway's API token (<code>run/token</code> after <code>make up</code>).
          This browser keeps it until you forget it.</p>
        {req && req.reason && <p class="error" role="alert">{req.reason}</p>}
        <label for="token-input">Token</label>
        <input id="token-input" ref={input} type="password" autocomplete="off" required />
        <div class="buttons">
          <button type="submit">Save</button>
          <button type="button" onClick={() => finish(null)}>Cancel</button>
        </div>
      </form>
    </dialog>
  );
}

// A small control to forget the stored token.
export function ForgetToken() {
  const [has, setHas] = useState(!!getToken());
  if (!has) return null;
  return <button type="button" class="link" onClick={() => { setToken(null); setHas(false); }}>Forget the API token</button>;
}
