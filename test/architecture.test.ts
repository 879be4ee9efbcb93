/**
 * The layers of the house (DESIGN.md §1): imports point downward only, and no surface imports another.
 *
 *   cli                      the commands: the entry point, may start any surface
 *   server                   HTTP: mounts MCP over HTTP and the chat of the agent loop, serves the studio
 *   mcp · agent              protocol surfaces the server and the cli use; neither knows the other or HTTP
 *   service                  what several surfaces share: the session store, version, defaults
 *   calls → tools → garment → engine
 *   registry                 depends on nothing (no package, no other folder)
 *   web                      browser code: imports nothing from the server side but types, and the registry's
 *                            data that stands alone (a registry file importing nothing: the formats read), so
 *                            the studio lists what the server takes without bundling anything else
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');

const RANK: Readonly<Record<string, number>> = {
  registry: 0,
  engine: 1,
  garment: 2,
  tools: 3,
  calls: 4,
  service: 5,
  mcp: 6,
  agent: 6,
  server: 7,
  cli: 8,
};

interface Import {
  readonly file: string;
  readonly specifier: string;
  readonly typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|tsx)$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f));
}

/** Static imports and re-exports (with whether they are type-only) and dynamic `import('…')`. */
function importsOf(file: string, text: string): Import[] {
  const found: Import[] = [];
  const statics = /^\s*(import|export)\s+(type\s+)?[^'";]*?\sfrom\s+['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(statics))
    found.push({ file, specifier: m[3]!, typeOnly: m[2] !== undefined });
  for (const m of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm))
    found.push({ file, specifier: m[1]!, typeOnly: false });
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g))
    found.push({ file, specifier: m[1]!, typeOnly: false });
  return found;
}

function layerOf(abs: string): string {
  return path.relative(SRC, abs).split(path.sep)[0]!;
}

const all = sourceFiles(SRC).flatMap((file) => importsOf(file, readFileSync(file, 'utf8')));

/** A source file that imports nothing (pure data): browser code may bundle it. */
function standsAlone(file: string): boolean {
  return existsSync(file) && importsOf(file, readFileSync(file, 'utf8')).length === 0;
}

function violations(imports: readonly Import[]): string[] {
  const problems: string[] = [];
  for (const imp of imports) {
    const from = layerOf(imp.file);
    const where = path.relative(SRC, imp.file);
    if (!imp.specifier.startsWith('.')) {
      if (from === 'registry') problems.push(`${where}: the registry imports the package "${imp.specifier}"`);
      continue;
    }
    const to = layerOf(path.resolve(path.dirname(imp.file), imp.specifier));
    if (to === from) continue;
    if (from === 'web') {
      const target = path.resolve(path.dirname(imp.file), imp.specifier).replace(/\.js$/, '.ts');
      if (!imp.typeOnly && !(to === 'registry' && standsAlone(target)))
        problems.push(`${where}: browser code imports ${imp.specifier} (types only)`);
      continue;
    }
    if (to === 'web') {
      problems.push(`${where}: imports browser code ${imp.specifier}`);
      continue;
    }
    const rf = RANK[from];
    const rt = RANK[to];
    if (rf === undefined || rt === undefined) {
      problems.push(`${where}: ${from} or ${to} is not a known layer (add it to RANK)`);
    } else if (rt === rf) {
      problems.push(`${where}: the ${from} surface imports the ${to} surface`);
    } else if (rt > rf) {
      problems.push(`${where}: ${from} imports upward into ${to} (${imp.specifier})`);
    }
  }
  return problems;
}

describe('architecture', () => {
  it('finds the imports it checks (the scan itself works)', () => {
    expect(all.length).toBeGreaterThan(200);
    expect(
      importsOf('x.ts', "import type { A } from '../a.js';\nconst m = await import('../b.js');"),
    ).toEqual([
      { file: 'x.ts', specifier: '../a.js', typeOnly: true },
      { file: 'x.ts', specifier: '../b.js', typeOnly: false },
    ]);
  });

  it('every folder of src/ is a known layer', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(folders.filter((f) => f !== 'web' && RANK[f] === undefined)).toEqual([]);
  });

  it('imports point downward only, and no surface imports another', () => {
    expect(violations(all)).toEqual([]);
  });

  it('the command line loads the engine only for the commands that use it (tools, labels, --help stay light)', () => {
    // Dynamic imports load when a command runs; type-only imports never load.
    const staticImports = (file: string): Import[] =>
      importsOf(file, readFileSync(file, 'utf8').replace(/\bimport\(\s*['"][^'"]+['"]\s*\)/g, 'null')).filter(
        (imp) => !imp.typeOnly,
      );
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const imp of staticImports(file)) {
        if (!imp.specifier.startsWith('.')) {
          packages.add(
            imp.specifier
              .split('/')
              .slice(0, imp.specifier.startsWith('@') ? 2 : 1)
              .join('/'),
          );
          continue;
        }
        visit(path.resolve(path.dirname(file), imp.specifier).replace(/\.js$/, '.ts'));
      }
    };
    visit(path.join(SRC, 'cli/main.ts'));
    const heavy = [...seen]
      .map((f) => path.relative(SRC, f))
      .filter((f) => /^(engine|garment|tools|server|mcp)\//.test(f) || f === path.join('calls', 'session.ts'))
      // The server's settings are plain data (serve reads them to print its usage).
      .filter((f) => f !== path.join('server', 'config.ts'));
    expect(heavy).toEqual([]);
    expect([...packages].filter((p) => !p.startsWith('node:'))).toEqual([]);
    expect(seen.size).toBeGreaterThan(5);
  });

  it('would catch an upward import, a surface importing a surface, and a registry dependency', () => {
    const at = (file: string, specifier: string): Import => ({
      file: path.join(SRC, file),
      specifier,
      typeOnly: false,
    });
    expect(
      violations([
        at('engine/x.ts', '../tools/types.js'),
        at('mcp/x.ts', '../agent/loop.js'),
        at('agent/x.ts', '../server/app.js'),
        at('registry/x.ts', 'ajv'),
        at('web/x.ts', '../calls/session.js'),
        // The registry's index imports its tools: not data that stands alone.
        at('web/x.ts', '../registry/index.js'),
        at('web/x.ts', '../registry/file-formats.js'),
        at('cli/x.ts', '../server/server.js'),
      ]),
    ).toHaveLength(6);
  });
});
