import { useEffect, useState } from 'react';
import type { Ticket } from '../api/client';
import { dateTime, duration } from '../ui/format';

type Sla = NonNullable<Ticket['sla']>;
type Target = Sla['firstResponse'];

/** The SLA clock (docs/adr/0026): each target's state and the time left (or past), ticking every 30 s. */
export function SlaClock({ sla }: { sla: Ticket['sla'] }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  return (
    <section className="card" aria-labelledby="sla-title">
      <h2 id="sla-title">SLA</h2>
      {!sla ? (
        <p className="muted">No SLA rule applies to this ticket's priority.</p>
      ) : (
        <>
          <p className="muted">
            {sla.ruleName}
            {sla.use24x7 ? ' (24×7)' : ' (business hours)'}
            {sla.tier ? ` · tier ${sla.tier}` : ''}
          </p>
          <dl className="sla">
            <TargetRow label="First response" target={sla.firstResponse} now={now} />
            <TargetRow label="Resolution" target={sla.resolution} now={now} />
          </dl>
        </>
      )}
    </section>
  );
}

function TargetRow({ label, target, now }: { label: string; target: Target; now: number }) {
  let text: string;
  let tone = target.status;
  if (target.status === 'met') text = `Met${target.achievedAt ? ` ${dateTime(target.achievedAt)}` : ''}`;
  else if (target.status === 'breached') text = `Breached${target.breachedAt ? ` ${dateTime(target.breachedAt)}` : ''}`;
  else if (target.status === 'paused') text = 'Paused while pending';
  else if (target.dueAt) {
    const left = Date.parse(target.dueAt) - now;
    text = left >= 0 ? `Due in ${duration(left)}` : `Overdue by ${duration(left)}`;
    if (left < 0) tone = 'breached';
    else if (left < 60 * 60_000) tone = 'paused';
  } else text = 'Running';
  return (
    <div className={`sla-row sla-${tone}`}>
      <dt>{label}</dt>
      <dd>
        <span className="sla-state">{text}</span>
        <span className="muted"> · target {duration(target.targetMinutes * 60_000)}</span>
      </dd>
    </div>
  );
}
