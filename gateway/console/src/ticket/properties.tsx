import { useState, type RefObject } from 'react';
import { messageOf, type CustomField, type Ticket } from '../api/client';
import { useCustomFields, useMembers, useUpdateTicket } from '../api/queries';
import { useSession } from '../api/session';
import { PRIORITY_LABELS, STATUS_LABELS } from '../ui/format';
import { toast } from '../ui/toasts';
import { useStatusChange } from './status-change';
import { ErrorText } from '../ui/bits';

/** Status, priority, assignee, tags and custom fields, each saved as soon as it changes. */
export function TicketProperties({ ticket, assigneeRef, writable }: { ticket: Ticket; assigneeRef: RefObject<HTMLSelectElement | null>; writable: boolean }) {
  const update = useUpdateTicket(ticket.id);
  const changeStatus = useStatusChange(ticket);
  const members = useMembers();
  const { memberId } = useSession();
  const [error, setError] = useState<string | null>(null);
  const save = async (what: string, run: () => Promise<unknown>) => {
    setError(null);
    try {
      await run();
      toast(`${what} saved.`);
    } catch (err) {
      setError(`${what} not saved: ${messageOf(err)}`);
    }
  };
  const statuses = ['new', 'open', 'pending', 'resolved', 'closed'];
  return (
    <section className="card" aria-labelledby="props-title">
      <h2 id="props-title">Properties</h2>
      <ErrorText error={error} />
      <div className="field">
        <label htmlFor="ticket-status">Status</label>
        <select id="ticket-status" value={ticket.status} disabled={!writable} onChange={(e) => void save('Status', () => changeStatus(e.target.value))}>
          {(ticket.status === 'merged' ? [...statuses, 'merged'] : statuses).map((s) => (
            <option key={s} value={s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="ticket-priority">Priority</label>
        <select id="ticket-priority" value={ticket.priority} disabled={!writable} onChange={(e) => void save('Priority', () => update.mutateAsync({ priority: e.target.value }))}>
          {Object.entries(PRIORITY_LABELS).map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="ticket-assignee">Assignee</label>
        <select
          id="ticket-assignee"
          ref={assigneeRef}
          value={ticket.assignedTo ?? ''}
          disabled={!writable}
          onChange={(e) => void save('Assignee', () => update.mutateAsync({ assignedTo: e.target.value || null }))}
        >
          <option value="">Unassigned</option>
          {(members.data ?? []).map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
              {m.id === memberId ? ' (me)' : ''}
            </option>
          ))}
        </select>
        {writable && ticket.assignedTo !== memberId && (
          <button type="button" className="link" onClick={() => void save('Assignee', () => update.mutateAsync({ assignedTo: memberId }))}>
            Assign to me
          </button>
        )}
      </div>
      <Tags ticket={ticket} writable={writable} onSave={(tags) => save('Tags', () => update.mutateAsync({ tags }))} />
      <CustomFields ticket={ticket} writable={writable} onSave={(id, label, value) => save(label, () => update.mutateAsync({ customFields: { [id]: value } }))} />
    </section>
  );
}

function Tags({ ticket, writable, onSave }: { ticket: Ticket; writable: boolean; onSave: (tags: string[]) => Promise<void> }) {
  const [draft, setDraft] = useState('');
  const add = () => {
    const tag = draft.trim();
    if (!tag || ticket.tags.includes(tag)) return setDraft('');
    setDraft('');
    void onSave([...ticket.tags, tag]);
  };
  return (
    <div className="field">
      <span className="label" id="tags-label">
        Tags
      </span>
      <ul className="tags" aria-labelledby="tags-label">
        {ticket.tags.length === 0 && <li className="muted">none</li>}
        {ticket.tags.map((tag) => (
          <li key={tag} className="tag">
            {tag}
            {writable && (
              <button type="button" className="plain" aria-label={`Remove tag ${tag}`} onClick={() => void onSave(ticket.tags.filter((x) => x !== tag))}>
                ×
              </button>
            )}
          </li>
        ))}
      </ul>
      {writable && (
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            add();
          }}
        >
          <label htmlFor="tag-new" className="visually-hidden">
            New tag
          </label>
          <input id="tag-new" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Add a tag" maxLength={100} />
          <button type="submit" className="secondary">
            Add
          </button>
        </form>
      )}
    </div>
  );
}

function CustomFields({ ticket, writable, onSave }: { ticket: Ticket; writable: boolean; onSave: (id: string, label: string, value: unknown) => Promise<void> }) {
  const fields = useCustomFields();
  if (!fields.data?.length) return null;
  return (
    <fieldset className="custom-fields">
      <legend>Custom fields</legend>
      {fields.data.map((f) => (
        <CustomFieldInput key={f.id} field={f} value={ticket.customFields?.[f.id]} writable={writable} onSave={(v) => onSave(f.id, f.label, v)} />
      ))}
    </fieldset>
  );
}

function CustomFieldInput({ field, value, writable, onSave }: { field: CustomField; value: unknown; writable: boolean; onSave: (v: unknown) => Promise<void> }) {
  const id = `cf-${field.id}`;
  const current = value ?? '';
  const [draft, setDraft] = useState<string>(String(current));
  const commit = (raw: string) => {
    if (raw === String(current)) return;
    if (raw === '') return void onSave(null);
    void onSave(field.fieldType === 'number' ? Number(raw) : raw);
  };
  if (field.fieldType === 'checkbox') {
    return (
      <div className="field check">
        <input id={id} type="checkbox" checked={value === true} disabled={!writable} onChange={(e) => void onSave(e.target.checked)} />
        <label htmlFor={id}>{field.label}</label>
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>
        {field.label}
        {field.required ? ' (required)' : ''}
      </label>
      {field.fieldType === 'select' ? (
        <select id={id} value={String(current)} disabled={!writable} onChange={(e) => commit(e.target.value)}>
          <option value="">—</option>
          {(field.options ?? []).map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          type={field.fieldType === 'number' ? 'number' : field.fieldType === 'date' ? 'date' : 'text'}
          value={draft}
          min={field.minValue ?? undefined}
          max={field.maxValue ?? undefined}
          disabled={!writable}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={(e) => commit(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && commit((e.target as HTMLInputElement).value)}
        />
      )}
    </div>
  );
}
