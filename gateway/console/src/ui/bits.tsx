import type { ReactNode } from 'react';

/** A failure said where it happened (an alert: screen readers announce it). */
export function ErrorText({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {error}
    </p>
  );
}

/** A secret the API shows once (a new key, a webhook's signing secret): selectable, then dismissed. */
export function ShownOnce({ id, label, value, children, onDone }: { id: string; label: string; value: string; children: ReactNode; onDone: () => void }) {
  return (
    <div className="card reveal" role="status">
      <p>{children}</p>
      <label htmlFor={id}>{label}</label>
      <input id={id} className="mono" readOnly value={value} onFocus={(e) => e.target.select()} />
      <button type="button" className="secondary" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
