'use strict';

// The docs cannot drift from the code: every link between the pages resolves, and every
// command they show runs, with --plan where the command has it (every check of its words,
// flags, files and --app runs, nothing starts) and --help elsewhere (its flags are known).
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { splitWords } = require('../lab/app/words');

const ROOT = path.join(__dirname, '..');
const PAGES = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (page) => fs.readFileSync(path.join(ROOT, page), 'utf8');
// The examples' own service and script stand for the docs' ../shop and flow.yml.
const SHOP = path.join(__dirname, 'fixtures/apps/shop');
const FLOW = path.join(__dirname, 'fixtures/scripts/shop-flow.yml');
const CLI = path.join(ROOT, 'lab/cli');

test('the README is short, and names every docs page', () => {
  const readme = read('README.md');
  expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  for (const page of PAGES.filter((p) => p.startsWith('docs/') && p !== 'docs/README.md')) {
    expect(readme).toContain(`](${page})`);
  }
});

test('every link between the pages resolves to a file of the repository', () => {
  const broken = [];
  for (const page of PAGES) {
    for (const [, link] of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(link) || link.startsWith('#')) continue;
      const file = path.resolve(ROOT, path.dirname(page), link.split('#')[0]);
      if (!fs.existsSync(file)) broken.push(`${page}: ${link}`);
    }
  }
  expect(broken).toEqual([]);
});

// The `npm run <command> -- ...` lines of the pages' sh blocks, as lab commands, and the
// `npx node-deploy-lab <command> ...` ones (docs/api.md), run from the example's service
// folder (`--app .` is that service, as in a user's project).
function documentedCommands() {
  const out = [];
  for (const page of PAGES) {
    const blocks = [...read(page).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
    for (const line of blocks.flatMap((b) => b.split('\n'))) {
      for (const part of line.replace(/\s+#.*$/, '').split('&&')) {
        const npx = part.trim().match(/^npx (?:node-deploy-lab|ndlab) (\w+)(?: (.*))?$/);
        if (npx) {
          out.push({ page, line: part.trim(), command: npx[1], args: npx[2] || '', cwd: SHOP });
          continue;
        }
        const m = part.trim().match(/^(?:sudo )?npm run (\w[\w:-]*)(?: -- (.*))?$/);
        if (!m || m[1].startsWith('test') || m[1] === 'setup') continue;
        out.push({ page, line: part.trim(), command: m[1], args: m[2] || '' });
      }
    }
  }
  return out;
}

const helpOf = new Map();
function hasPlan(command) {
  if (!helpOf.has(command)) {
    const r = spawnSync(process.execPath, [CLI, command, '--help'], { encoding: 'utf8' });
    helpOf.set(command, r.stdout);
  }
  return /--plan\b/.test(helpOf.get(command));
}

test('every documented command runs: --plan where the command has one, --help elsewhere', () => {
  const commands = documentedCommands();
  expect(commands.length).toBeGreaterThan(30);
  const failed = [];
  const tmp = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'lab-docs-'));
  try {
    for (const c of commands) {
      // A placeholder (<endpoint>, results/<run>) has nothing to plan: its flags are checked.
      const placeholder = /<[a-z0-9]+>/i.test(c.args);
      const words = placeholder
        ? []
        : splitWords(c.args.replace(/\.\.\/shop\/flow\.yml|(?<![\w/])flow\.yml/g, FLOW).replace(/\.\.\/shop/g, SHOP));
      if (words === null) {
        failed.push(`${c.page}: ${c.line}: not a plain command line`);
        continue;
      }
      const plan = !placeholder && hasPlan(c.command) && !words.includes('--list');
      const extra = plan ? (words.includes('--plan') ? [] : ['--plan']) : ['--help'];
      const r = spawnSync(process.execPath, [CLI, c.command, ...words, ...extra], {
        encoding: 'utf8',
        cwd: c.cwd ?? ROOT,
        env: { ...process.env, LAB_STATE_DIR: path.join(tmp, 'state'), LAB_RESULTS_DIR: path.join(tmp, 'results') },
        timeout: 30000,
      });
      if (r.status !== 0)
        failed.push(`${c.page}: ${c.line} (${extra[0]}): ${(r.stderr || r.stdout).trim().split('\n').pop()}`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  expect(failed).toEqual([]);
});
