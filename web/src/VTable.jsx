// VTable.jsx - the job table, DOM-virtualised: only the rows in view (plus a
// margin) exist in the document, so 10^5 rows scroll as fluently as 100.
// ARIA grid semantics (aria-rowcount, aria-rowindex) tell assistive
// technology and tests the real size; the arrow, Page and Home/End keys
// scroll it when it has the focus.
import { useEffect, useRef, useState } from 'preact/hooks';
import { cellValue } from './data.js';
import { fmtNum } from './format.js';
import { Link } from './router.jsx';

const ROW_H = 24;
const HEIGHT = 432;
const OVERSCAN = 8;
const HEAD_H = 52;   /* the two header rows, about */

function width(c) {
  if (c.key === 'job.error' || c.key === 'job.warning') return 260;
  if (c.key === 'job.job_id') return 96;
  if (c.group === 'job') return c.name === 'status' ? 84 : 70;
  return 112;
}

function show(c, v) {
  if (v === null || v === undefined) return '';
  if (c.kind === 'bool') return v ? 'true' : 'false';
  if (c.kind === 'num') return fmtNum(v);
  return v;
}

export function VTable({ store, rows, sort, onSort, filters, onFilter, invalid, selected, onSelect, resetKey }) {
  const scroller = useRef(null);
  const [top, setTop] = useState(0);
  const template = store.cols.map((c) => `${width(c)}px`).join(' ');
  const total = store.cols.reduce((s, c) => s + width(c), 0);
  // back to the top when the filters, brushes or sort change (not when the
  // same view is refreshed with more finished jobs)
  useEffect(() => { if (scroller.current) { scroller.current.scrollTop = 0; setTop(0); } }, [resetKey]);
  const first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((top + HEIGHT) / ROW_H) + OVERSCAN);
  const onScroll = (e) => setTop(e.currentTarget.scrollTop);
  const onKey = (e) => {
    const el = scroller.current, page = HEIGHT - 2 * ROW_H;
    const d = { ArrowDown: ROW_H, ArrowUp: -ROW_H, PageDown: page, PageUp: -page }[e.key];
    if (d) { el.scrollTop += d; e.preventDefault(); }
    else if (e.key === 'Home') { el.scrollTop = 0; e.preventDefault(); }
    else if (e.key === 'End') { el.scrollTop = el.scrollHeight; e.preventDefault(); }
  };
  const body = [];
  for (let r = first; r < last; r++) {
    const i = rows[r];
    body.push(
      <div role="row" class="vrow" aria-rowindex={r + 3} data-row={r} style={{ top: `${r * ROW_H}px`, gridTemplateColumns: template }}>
        {store.cols.map((c, j) => {
          const v = cellValue(store, j, i);
          const cls = c.kind === 'num' ? 'num' : c.key === 'job.status' ? `st ${v}` : '';
          if (c.key === 'job.job_id') {
            return (
              <div role="gridcell" class={cls} title={String(v)}>
                <input type="checkbox" class="sel" data-job={v} checked={selected.has(String(v))} aria-label={`Select job ${v}`}
                  onChange={(e) => onSelect(String(v), e.currentTarget.checked)} />
                <Link href={`/jobs/${v}`}>{v}</Link>
              </div>
            );
          }
          return <div role="gridcell" class={cls} title={v === null ? '' : String(v)}>{show(c, v)}</div>;
        })}
      </div>,
    );
  }
  return (
    <div class="vtable" ref={scroller} style={{ height: `${Math.min(HEIGHT, HEAD_H + rows.length * ROW_H + 2)}px` }} onScroll={onScroll} onKeyDown={onKey}
      tabIndex={0} role="grid" aria-label="Jobs" aria-rowcount={rows.length + 2} aria-colcount={store.cols.length} id="jobs-grid">
      <div class="vhead" style={{ width: `${total}px` }}>
        <div role="row" aria-rowindex={1} class="hrow" style={{ gridTemplateColumns: template }}>
          {store.cols.map((c) => {
            const active = sort && sort.key === c.key;
            return (
              <div role="columnheader" class={`g-${c.group}`} aria-sort={active ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
                <button type="button" class="sort" data-key={c.key} title={`${c.group}: ${c.name}`}
                  onClick={() => onSort(c.key)}>{c.label}{active ? (sort.desc ? ' ▼' : ' ▲') : ''}</button>
              </div>
            );
          })}
        </div>
        <div role="row" aria-rowindex={2} class="frow" style={{ gridTemplateColumns: template }}>
          {store.cols.map((c) => (
            <div role="gridcell">
              <input type="text" class={invalid.has(c.key) ? 'invalid' : ''} data-filter={c.key} aria-label={`Filter ${c.group} ${c.name}`}
                value={filters.get(c.key) || ''} placeholder={c.kind === 'num' ? '>0, 1..2' : c.kind === 'bool' ? 'true' : 'text'}
                aria-invalid={invalid.has(c.key) ? 'true' : 'false'}
                onInput={(e) => onFilter(c.key, e.currentTarget.value)} />
            </div>
          ))}
        </div>
      </div>
      <div class="vbody" style={{ height: `${rows.length * ROW_H}px`, width: `${total}px` }}>{body}</div>
    </div>
  );
}
