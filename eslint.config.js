// Lint rules that hold berth's layering and its one home for API versions.
import tseslint from 'typescript-eslint';

const childProcessImports = ['node:child_process', 'child_process'].map((name) => ({
  name,
  message: 'Child processes start in src/runtime only (child-process.ts: a time limit, a kill on abort, one CommandError); call it instead.',
}));

const versionLiteral = {
  selector: 'Literal[value=/^1\\.\\d{2}$/]',
  message: 'API version numbers live in src/api/api-version.ts only: ask ctx.api.has(behaviour) instead.',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/generated/**'] },
  ...tseslint.configs.recommended,
  {
    // tests may spell versions (and timestamps that look like them) out
    files: ['src/**/*.ts'],
    ignores: ['src/api/api-version.ts', 'src/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': ['error', versionLiteral],
    },
  },
  {
    // Only the composition root wires the API to the services.
    files: ['src/**/*.ts'],
    ignores: ['src/daemon/**', 'src/api/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/api/*', '**/api/**'], message: 'Only src/daemon imports the API layer.' }] }],
    },
  },
  {
    // Nothing outside the runtime starts a process on its own (nor synchronously, which stalls the daemon).
    // Tests may: they set up fixtures with the tools themselves.
    files: ['src/**/*.ts'],
    ignores: ['src/runtime/**', 'src/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: childProcessImports }],
    },
  },
  {
    // The composition root only composes: it calls the areas' factories (create-*.ts) and hands
    // their services to the API server; configuration, logging and events are the process's own.
    files: ['src/daemon/**/*.ts'],
    rules: {
      // this setting replaces the one above for the daemon: it repeats the ban on child processes
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: childProcessImports,
        patterns: [{
          regex: '^\\.\\./(?!config/|logging/|events/|api/server\\.js$|[a-z-]+/create-[a-z-]+\\.js$)',
          message: 'src/daemon wires areas through their factories (create-*.ts) only: put the rule in its area.',
        }],
      }],
    },
  },
  {
    // A route folder sees its own backend interface, the shared API plumbing and wire types, never a service.
    // Domain types may be named; domain code may not be called except through the backend.
    files: ['src/api/routes/**/*.ts'],
    rules: {
      // this setting replaces the one above for routes: it repeats the ban on child processes
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: childProcessImports,
        patterns: [{
          // paths that climb out of src/api into a service's folder (not the route folders of the same names)
          regex: '^(\\.\\./){2,}(daemon|events|system|store|runtime|cli|config|image|container|rootfs|network|volume|build|swarm)/',
          message: 'Routes talk to services only through their backend.ts interface.',
          allowTypeImports: true,
        }],
      }],
    },
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
);
