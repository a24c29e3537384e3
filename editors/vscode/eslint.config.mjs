// Lint for the extension. The plain modules under src/core must not reach
// the VS Code API: node's test runner loads them without VS Code.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
    { ignores: ['out/', 'node_modules/', 'test/real/node_modules/'] },
    js.configs.recommended,
    // Type-aware rules: a forgotten await on a request is a silent bug here.
    ...tseslint.configs.recommendedTypeChecked,
    {
        languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
        rules: { eqeqeq: 'error' },
    },
    { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked },
    {
        // The real-VS-Code tests are plain modules run by node (their
        // packages are installed only when they run: scripts/real.sh).
        files: ['test/real/**/*.mjs'],
        languageOptions: {
            globals: { process: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', console: 'readonly' },
        },
    },
    {
        // node:test reports the promises test() returns; the runner awaits them.
        files: ['test/**/*.ts'],
        rules: {
            '@typescript-eslint/no-floating-promises': 'off',
            '@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }],
        },
    },
    {
        files: ['src/core/**/*.ts'],
        rules: {
            'no-restricted-imports': [
                'error',
                {
                    paths: [{ name: 'vscode', message: 'src/core stays testable without VS Code.' }],
                    patterns: [{ group: ['vscode-languageclient*'], message: 'src/core stays testable without VS Code.' }],
                },
            ],
        },
    },
);
