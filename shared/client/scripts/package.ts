// `npm run package -w @helpdesk/client [-- --out <dir>]`: the published layout of `@helpdesk/client`
// and its tarball. Inside the repository the workspace resolves the client to its TypeScript sources
// (`main: src/index.ts`, run by tsx and jest); a project outside it installs the tarball this writes:
// built JavaScript (CommonJS, importable from ESM too) with its .d.ts, depending only on openapi-fetch.
//
//   npm run package -w @helpdesk/client                      → shared/client/dist/helpdesk-client-<version>.tgz
//   cd ~/my-app && npm install /path/to/helpdesk-client-<version>.tgz
//
// Steps: compile src/ with the repository's TypeScript into <out>/package/dist (declarations included,
// the generated schema.d.ts beside them), write the package's own package.json and README, then
// `npm pack` that folder into <out>. Prints the tarball's path.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const clientDir = path.resolve(__dirname, '..');
const srcDir = path.join(clientDir, 'src');

export interface PackageResult {
  /** The published layout, as it is packed. */
  packageDir: string;
  /** `<out>/helpdesk-client-<version>.tgz`. */
  tarball: string;
}

/** The package.json of the published layout: the sources' own, pointed at the build. */
export function publishedManifest(): Record<string, unknown> {
  const own = JSON.parse(readFileSync(path.join(clientDir, 'package.json'), 'utf8')) as Record<string, any>;
  return {
    name: own.name,
    version: own.version,
    description: own.description,
    license: 'MIT',
    main: './dist/index.js',
    types: './dist/index.d.ts',
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
    files: ['dist', 'README.md'],
    sideEffects: false,
    engines: { node: '>=20.19' },
    dependencies: own.dependencies,
  };
}

/** Compiles src/ into `outDir` (JavaScript and declarations); throws with the compiler's messages on an error. */
export function compile(outDir: string): void {
  const rootNames = readdirSync(srcDir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => path.join(srcDir, f));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    esModuleInterop: true,
    skipLibCheck: true,
    declaration: true,
    sourceMap: false,
    rootDir: srcDir,
    outDir,
    newLine: ts.NewLineKind.LineFeed,
  };
  const program = ts.createProgram({ rootNames, options });
  const emitted = program.emit();
  const problems = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (problems.length) {
    const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => clientDir, getNewLine: () => '\n' };
    throw new Error(`@helpdesk/client does not compile:\n${ts.formatDiagnostics(problems, host)}`);
  }
  // The generated types are a declaration file already: they go beside the emitted ones.
  copyFileSync(path.join(srcDir, 'schema.d.ts'), path.join(outDir, 'schema.d.ts'));
}

/** Builds the published layout under `out` and packs it there. */
export function buildPackage(out: string = path.join(clientDir, 'dist')): PackageResult {
  const packageDir = path.join(out, 'package');
  rmSync(packageDir, { recursive: true, force: true });
  mkdirSync(packageDir, { recursive: true });
  compile(path.join(packageDir, 'dist'));
  const manifest = publishedManifest();
  writeFileSync(path.join(packageDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(path.join(clientDir, 'README.md'), path.join(packageDir, 'README.md'));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const packed = execFileSync(npm, ['pack', packageDir, '--pack-destination', out, '--json', '--ignore-scripts'], { encoding: 'utf8', cwd: out });
  const [{ filename }] = JSON.parse(packed) as { filename: string }[];
  return { packageDir, tarball: path.join(out, filename) };
}

if (require.main === module) {
  const i = process.argv.indexOf('--out');
  const out = i > 0 ? path.resolve(process.argv[i + 1]) : undefined;
  const { tarball } = buildPackage(out);
  console.log(tarball);
}
