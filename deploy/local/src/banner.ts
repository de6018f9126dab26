import type { DevCredentials } from './credentials';

/** What both launchers print once the platform answers: `npm start` and `npm run start:processes`. */
export interface BannerFacts {
  title: string;
  credentials: DevCredentials;
  created: boolean;
  /** credentials.json */
  file: string;
  /** Lines between the keys and the credentials file: MongoDB, the bus, the stores, the processes… */
  details: Array<[label: string, text: string]>;
  baseUrl: string;
}

export function banner(f: BannerFacts): string {
  const row = (label: string, text: string) => `  ${label.padEnd(11)} ${text}`;
  return [
    '',
    `${f.title}${f.created ? ' (first start: development team created)' : ''}`,
    row('team', `${f.credentials.teamId} (${f.credentials.teamName})`),
    ...(f.credentials.ownerMemberId ? [row('owner', `${f.credentials.ownerMemberId} (the keys below are the owner's)`)] : []),
    ...Object.entries(f.credentials.keys).map(([kind, key]) => row(kind, key)),
    ...f.details.map(([label, text]) => row(label, text)),
    row('credentials', f.file),
    `Ready: ${f.baseUrl}`,
    '',
  ].join('\n');
}
