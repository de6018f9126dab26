/** The cosmetics shop: avatar frames and victory messages (shown when a member lands a killing blow), priced in gold. */
export interface CosmeticDef {
  key: string;
  kind: 'avatar_frame' | 'victory_message';
  name: string;
  price: number;
  text: string | null;
}

export const COSMETICS: readonly CosmeticDef[] = [
  { key: 'bronze_frame', kind: 'avatar_frame', name: 'Bronze frame', price: 50, text: null },
  { key: 'silver_frame', kind: 'avatar_frame', name: 'Silver frame', price: 150, text: null },
  { key: 'gold_frame', kind: 'avatar_frame', name: 'Gold frame', price: 400, text: null },
  { key: 'flame_frame', kind: 'avatar_frame', name: 'Flame frame', price: 800, text: null },
  { key: 'inbox_zero', kind: 'victory_message', name: 'Inbox zero', price: 30, text: 'Inbox zero, as promised.' },
  { key: 'ticket_tamer', kind: 'victory_message', name: 'Ticket tamer', price: 60, text: 'Another one tamed.' },
  { key: 'sla_legend', kind: 'victory_message', name: 'SLA legend', price: 120, text: 'Resolved before you noticed.' },
];

export const cosmeticByKey = (key: string) => COSMETICS.find((c) => c.key === key);
