/**
 * Every service follows one layout (issue 33 item 2): src/main.ts, src/service.ts and src/collections.ts;
 * one folder per resource, each with its handlers.ts, whose handlers stay thin (parse, call one use case, send: no business rules); every
 * broker subscription under src/consumers/ (registered from consumers/index.ts), none in a
 * `<resource>/consumers.ts`, none wired in service.ts. Where a service differs it says so below, and
 * the list must match the tree exactly: a difference removed from the code is removed here too.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const SERVICES = path.join(ROOT, 'services');

/** A handler (any function in a handlers.ts other than the `…Handlers` factory) longer than this holds rules that belong in a use case. */
const HANDLER_MAX_LINES = 20;
const REQUIRED_FILES = ['main.ts', 'service.ts', 'collections.ts'];
/** Folders of src/ that are not resources. */
const NOT_RESOURCES = new Set(['consumers', 'workers']);
/** What subscribing looks like: kit's subscription helpers imported. */
const SUBSCRIBING_NAMES = new Set(['on', 'onEvery', 'customFieldSubscriptions', 'Subscription']);

/**
 * Each service's declared differences from the layout, as `layoutProblems` words them. Every entry
 * says why; remove it when the code follows the layout.
 */
const DIFFERENCES: Record<string, readonly string[]> = {
  community: [
    // Where attachments' bytes are kept (a folder or S3): a store, not a resource.
    'no handlers.ts: storage',
  ],
  customers: [],
  dataops: [],
  game: [
    // Catalogs and copies the game keeps for its rules (achievements' definitions, the workspace's
    // members, ticket snapshots): no operation of their own.
    'no handlers.ts: achievements',
    'no handlers.ts: members',
    'no handlers.ts: tickets',
  ],
  knowledge: [
    // The team's slug, kept for the help center's address: no operation of its own.
    'no handlers.ts: teams',
  ],
  notifications: [
    // The event stream's log and the mail queue are the stream's and the mail worker's stores; the
    // members are a copy kept from the workspace's events.
    'no handlers.ts: events',
    'no handlers.ts: mail',
    'no handlers.ts: members',
  ],
  ticketing: [
    // Bulk changes and imported rows arrive from dataops' internal calls and write many tickets at once.
    'long handler: bulk/handlers.ts createRows',
    'long handler: bulk/handlers.ts importTicketRows',
    // Projections and settings ticketing keeps of other services' data (no routes of their own).
    'no handlers.ts: business-hours',
    'no handlers.ts: customer-refs',
    'no handlers.ts: members',
  ],
  webhooks: [
    // The delivery worker (sending, signing, retry schedule, URL safety): a worker's code, not a resource.
    'no handlers.ts: delivery',
  ],
  workspace: [],
};

const posix = (p: string) => p.split(path.sep).join('/');

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) filesUnder(p, out);
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

function foldersUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(p, ...foldersUnder(p));
  }
  return out;
}

/** The names a file imports from @helpdesk/kit. */
function kitImports(sf: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const s of sf.statements) {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier) || s.moduleSpecifier.text !== '@helpdesk/kit') continue;
    const bindings = s.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) names.push(...bindings.elements.map((e) => (e.propertyName ?? e.name).text));
  }
  return names;
}

/** The functions of a handlers.ts longer than HANDLER_MAX_LINES, by name (the `…Handlers` factories themselves not counted). */
function longHandlers(sf: ts.SourceFile): string[] {
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const long: string[] = [];
  const visit = (n: ts.Node) => {
    if ((ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n) || ts.isArrowFunction(n) || ts.isMethodDeclaration(n)) && n.body) {
      const holder = n.name ?? (n.parent && (ts.isPropertyAssignment(n.parent) || ts.isVariableDeclaration(n.parent)) ? n.parent.name : undefined);
      const name = holder ? holder.getText(sf) : '<anonymous>';
      const lines = lineOf(n.body.getEnd()) - lineOf(n.body.getStart(sf)) + 1;
      if (!name.endsWith('Handlers') && lines > HANDLER_MAX_LINES) long.push(name);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return long;
}

/** How one service (its folder) differs from the layout, sorted. */
function layoutProblems(serviceDir: string): string[] {
  const src = path.join(serviceDir, 'src');
  const problems: string[] = [];
  for (const f of REQUIRED_FILES) if (!existsSync(path.join(src, f))) problems.push(`missing: src/${f}`);
  for (const dir of foldersUnder(src)) {
    const rel = posix(path.relative(src, dir));
    if (NOT_RESOURCES.has(rel.split('/')[0]!)) continue;
    if (!existsSync(path.join(dir, 'handlers.ts'))) problems.push(`no handlers.ts: ${rel}`);
  }
  for (const file of filesUnder(src)) {
    const rel = posix(path.relative(src, file));
    const inConsumers = rel.startsWith('consumers/');
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    if (!inConsumers && path.basename(rel) === 'consumers.ts') problems.push(`consumers.ts outside consumers/: ${rel}`);
    if (!inConsumers && kitImports(sf).some((n) => SUBSCRIBING_NAMES.has(n))) problems.push(`subscribes outside consumers/: ${rel}`);
    if (rel === 'service.ts') {
      const wired = sf.statements.filter((s) => ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && /consumers/.test(s.moduleSpecifier.text) && s.moduleSpecifier.text !== './consumers');
      if (wired.length) problems.push('subscriptions wired in service.ts');
    }
    if (path.basename(rel).endsWith('handlers.ts')) for (const name of longHandlers(sf)) problems.push(`long handler: ${rel} ${name}`);
  }
  return problems.sort();
}

describe('the layout check', () => {
  let dir: string;
  const put = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'service-layout-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('finds each kind of difference in a service that breaks the layout', () => {
    put('src/main.ts', '');
    put('src/service.ts', "import { consumers } from './consumers';\nimport { extra } from './things/consumers';\n");
    put('src/consumers/index.ts', "import { on } from '@helpdesk/kit';\n");
    put('src/things/consumers.ts', "import { on, type Subscription } from '@helpdesk/kit';\n");
    put('src/things/handlers.ts', `export const thingHandlers = () => ({\n  async make() {\n${'    const x = 1;\n'.repeat(HANDLER_MAX_LINES)}  },\n  get: () => 1,\n});\n`);
    put('src/store/files.ts', '');
    expect(layoutProblems(dir)).toEqual([
      'consumers.ts outside consumers/: things/consumers.ts',
      'long handler: things/handlers.ts make',
      'missing: src/collections.ts',
      'no handlers.ts: store',
      'subscribes outside consumers/: things/consumers.ts',
      'subscriptions wired in service.ts',
    ]);
  });

  test('finds nothing in a service that follows it', () => {
    const ok = path.join(dir, 'ok');
    for (const [rel, text] of Object.entries({
      'src/main.ts': '',
      'src/collections.ts': '',
      'src/service.ts': "import { consumers } from './consumers';\n",
      'src/consumers/index.ts': "import { on, type Subscription } from '@helpdesk/kit';\n",
      'src/things/handlers.ts': "export const thingHandlers = (r: { get(): number }) => ({ get: () => r.get() });\n",
      'src/things/create.ts': "import { scoped } from '@helpdesk/kit';\n",
    })) put(path.join('ok', rel), text);
    expect(layoutProblems(ok)).toEqual([]);
  });
});

describe('the services', () => {
  const services = readdirSync(SERVICES).filter((s) => statSync(path.join(SERVICES, s)).isDirectory() && existsSync(path.join(SERVICES, s, 'src')));

  test('every service has its declared differences listed, and only services that exist are', () => {
    expect(Object.keys(DIFFERENCES).sort()).toEqual([...services].sort());
  });

  test.each(services)('%s follows the layout, apart from its declared differences', (service) => {
    expect(layoutProblems(path.join(SERVICES, service))).toEqual([...(DIFFERENCES[service] ?? [])].sort());
  });
});
