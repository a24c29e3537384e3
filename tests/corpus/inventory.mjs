// The definitions of JavaScript, TypeScript and TSX files as the TypeScript
// compiler sees them: an inventory of the corpus made without tree-sitter, so
// the anchor tests do not grade engram against its own parser.
//
// Usage: node inventory.mjs FILE...   One JSON object per line:
//   {"file", "line" (1-based, the definition's first token: export,
//    decorators, `const`), "nameLine", "name", "kind"}
// What counts as a definition: function and class declarations (overload
// signatures included), methods, constructors and accessors (class, object
// literal, interface), interfaces, type aliases, enums, namespaces, a
// variable, class field, object property or member assignment whose value is
// a function or class, and a function passed to a call whose first argument
// is a string (describe/it/test, routes): named after the callee's last
// identifier and the string, as engram names them (`it("parses")`).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const ts = require('typescript');

function scriptKind(file) {
  if (file.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (file.endsWith('.ts') || file.endsWith('.mts') || file.endsWith('.cts')) return ts.ScriptKind.TS;
  return ts.ScriptKind.JS;
}

const isFunctionValue = (n) =>
  n && (ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isClassExpression(n));

function nameText(sf, n) {
  if (!n) return undefined;
  if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n)) return n.text;
  if (ts.isStringLiteral(n) || ts.isNumericLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n))
    return n.text;
  return n.getText(sf);
}

// The string a call's first argument holds, when it is a plain string.
function firstString(call) {
  const a = call.arguments[0];
  if (a && (ts.isStringLiteral(a) || ts.isNoSubstitutionTemplateLiteral(a))) return a.text;
  return undefined;
}

function calleeName(sf, e) {
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return undefined;
}

function inventory(file) {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind(file));
  const out = [];
  const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const add = (startNode, nameNode, name, kind) => {
    if (name === undefined) return;
    out.push({
      file,
      line: lineOf(startNode.getStart(sf)),
      nameLine: lineOf((nameNode ?? startNode).getStart(sf)),
      name,
      kind,
    });
  };
  const visit = (n) => {
    if (ts.isFunctionDeclaration(n)) {
      add(n, n.name, n.name ? n.name.text : 'default', 'function');
    } else if (ts.isClassDeclaration(n)) {
      add(n, n.name, n.name ? n.name.text : 'default', 'class');
    } else if (ts.isMethodDeclaration(n) || ts.isMethodSignature(n)) {
      add(n, n.name, nameText(sf, n.name), 'method');
    } else if (ts.isConstructorDeclaration(n)) {
      add(n, n.getChildren(sf).find((c) => c.kind === ts.SyntaxKind.ConstructorKeyword), 'constructor', 'constructor');
    } else if (ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n)) {
      add(n, n.name, nameText(sf, n.name), 'method');
    } else if (ts.isInterfaceDeclaration(n)) {
      add(n, n.name, n.name.text, 'interface');
    } else if (ts.isTypeAliasDeclaration(n)) {
      add(n, n.name, n.name.text, 'type');
    } else if (ts.isEnumDeclaration(n)) {
      add(n, n.name, n.name.text, 'enum');
    } else if (ts.isModuleDeclaration(n) && ts.isIdentifier(n.name)) {
      // `namespace a.b {}` nests a second declaration: count the outer one.
      if (!(n.parent && ts.isModuleDeclaration(n.parent))) add(n, n.name, n.name.text, 'namespace');
    } else if (ts.isVariableDeclaration(n) && isFunctionValue(n.initializer) && ts.isIdentifier(n.name)) {
      // The whole statement when it declares only this variable.
      const list = n.parent;
      const stmt = list && list.parent;
      const whole = stmt && ts.isVariableStatement(stmt) && list.declarations.length === 1 ? stmt : n;
      add(whole, n.name, n.name.text, 'function');
    } else if ((ts.isPropertyDeclaration(n) || ts.isPropertyAssignment(n)) && isFunctionValue(n.initializer)) {
      add(n, n.name, nameText(sf, n.name), 'method');
    } else if (
      ts.isExpressionStatement(n) &&
      ts.isBinaryExpression(n.expression) &&
      n.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(n.expression.left) &&
      isFunctionValue(n.expression.right)
    ) {
      add(n, n.expression.left.name, n.expression.left.name.text, 'function');
    } else if (ts.isCallExpression(n) && n.arguments.some(isFunctionValue)) {
      const s = firstString(n);
      const callee = calleeName(sf, n.expression);
      if (s !== undefined && callee !== undefined)
        add(n, n.expression, `${callee}(${JSON.stringify(s)})`, 'function');
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

for (const file of process.argv.slice(2))
  for (const d of inventory(file)) process.stdout.write(JSON.stringify(d) + '\n');
