#!/usr/bin/env node
// Lists promises nobody waits for, which tsc does not flag: a statement that is only a call (or other
// expression) giving a Promise, or an array of them; an arrow function whose body gives a Promise where
// its caller expects nothing back (`rows.forEach((row) => stmt.run(row))`); a promise returned, not awaited,
// from inside a try. Each would let a write run after
// its transaction ended, or an error go unseen. `void promise` says on purpose; `await` or `return` it
// otherwise. Exit 1 when there is any. Usage: node scripts/floating-promises.mjs [tsconfig.json]
import path from 'node:path';
import ts from 'typescript';

const configPath = path.resolve(process.argv[2] ?? 'tsconfig.json');
const config = ts.readConfigFile(configPath, ts.sys.readFile);
if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, path.dirname(configPath));
const program = ts.createProgram(parsed.fileNames, parsed.options);
const checker = program.getTypeChecker();

// A Promise, a union holding one, or an array of them (one level: an array of arrays is not looked into).
function isPromise(type, inArray = false) {
  if (type.isUnion()) return type.types.some((member) => isPromise(member, inArray));
  if ((type.getSymbol() ?? type.aliasSymbol)?.getName() === 'Promise') return true;
  return !inArray && checker.isArrayType(type) && isPromise(checker.getTypeArguments(type)[0], true);
}

// `pending = start()`: kept to be awaited later.
function isAssignment(expression) {
  return ts.isBinaryExpression(expression) && expression.operatorToken.kind === ts.SyntaxKind.EqualsToken;
}

function returnsNothing(type) {
  return (type.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined)) !== 0;
}

// An arrow function with an expression body whose caller ignores what it gives (a void-returning callback).
function ignoredArrowBody(node) {
  if (!ts.isArrowFunction(node.parent) || node.parent.body !== node) return false;
  const contextual = checker.getContextualType(node.parent);
  const signatures = contextual?.getCallSignatures() ?? [];
  return signatures.length > 0 && signatures.every((signature) => returnsNothing(checker.getReturnTypeOfSignature(signature)));
}

// `return promise` inside a try of the same function: its catch never sees the rejection and its finally runs
// before the promise settles. `return await promise` there.
// In an async function, a value of a type parameter may be a promise too (`work: () => T` given async work).
function returnedFromTry(node) {
  if (!ts.isReturnStatement(node) || node.expression === undefined || ts.isAwaitExpression(node.expression)) return false;
  let at = node.parent;
  let inTry = false;
  for (; at && !ts.isFunctionLike(at); at = at.parent) {
    if ((ts.isTryStatement(at.parent) && at.parent.tryBlock === at) || (ts.isCatchClause(at.parent) && at.parent.parent.finallyBlock)) inTry = true;
  }
  if (!inTry) return false;
  const type = checker.getTypeAtLocation(node.expression);
  const generic = (type.flags & ts.TypeFlags.TypeParameter) !== 0 && at !== undefined && (ts.getCombinedModifierFlags(at) & ts.ModifierFlags.Async) !== 0;
  return generic || isPromise(type);
}

// A predicate or comparator answering a promise (always truthy), or an array of promises that no
// Promise.all gathers (`ids.map((id) => getLock(db, id))`).
const PREDICATES = new Set(['filter', 'some', 'every', 'find', 'findIndex', 'findLast', 'sort', 'toSorted']);
function promisesUngathered(node) {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return false;
  const method = node.expression.name.text;
  const callback = node.arguments[0];
  if (PREDICATES.has(method) && callback && (ts.isArrowFunction(callback) || ts.isFunctionExpression(callback))) {
    const signature = checker.getSignatureFromDeclaration(callback);
    return signature !== undefined && isPromise(checker.getReturnTypeOfSignature(signature));
  }
  if (method !== 'map' && method !== 'flatMap') return false;
  if (!isPromise(checker.getTypeAtLocation(node))) return false;
  let parent = node.parent;
  while (ts.isParenthesizedExpression(parent)) parent = parent.parent;
  return !(ts.isCallExpression(parent) && /^Promise\.(all|allSettled|race|any)$/.test(parent.expression.getText()));
}

// `expect(() => promise).toThrow()` (or `.not.toThrow()`): the function never throws; `await expect(promise).rejects`.
function expectsThrowOfPromise(node) {
  if (!ts.isCallExpression(node) || !ts.isIdentifier(node.expression) || node.expression.text !== 'expect') return false;
  const callback = node.arguments[0];
  if (!callback || !(ts.isArrowFunction(callback) || ts.isFunctionExpression(callback))) return false;
  const signature = checker.getSignatureFromDeclaration(callback);
  return signature !== undefined && isPromise(checker.getReturnTypeOfSignature(signature));
}

// An async function handed to a parameter that expects one giving nothing (`body: () => void`, forEach):
// the callee neither waits for it nor sees its rejection (a helper closing the database in `finally` closes
// it under the body's first await).
function asyncWhereNothingExpected(node) {
  if (!(ts.isArrowFunction(node) || ts.isFunctionExpression(node)) || !ts.isCallOrNewExpression(node.parent)) return false;
  const signature = checker.getSignatureFromDeclaration(node);
  if (signature === undefined || !isPromise(checker.getReturnTypeOfSignature(signature))) return false;
  const expected = checker.getContextualType(node)?.getCallSignatures() ?? [];
  // Ours only: Node's and libraries' callbacks (timers, events, `new Promise(async …)`) are their own business.
  const declaredHere = (each) => each.getDeclaration() !== undefined && !each.getDeclaration().getSourceFile().isDeclarationFile;
  return expected.length > 0 && expected.every((each) => declaredHere(each) && returnsNothing(checker.getReturnTypeOfSignature(each)));
}

// `expect(value).rejects` of something that is not a promise (`expect(await call()).rejects`): the call's
// rejection escapes the assertion.
function rejectsOfSettled(node) {
  if (!ts.isPropertyAccessExpression(node) || !['rejects', 'resolves'].includes(node.name.text)) return false;
  const call = node.expression;
  if (!ts.isCallExpression(call) || !ts.isIdentifier(call.expression) || call.expression.text !== 'expect' || call.arguments.length === 0) return false;
  return !isPromise(checker.getTypeAtLocation(call.arguments[0]));
}

const found = [];
for (const file of program.getSourceFiles()) {
  if (file.isDeclarationFile || file.fileName.includes('/node_modules/')) continue;
  const visit = (node) => {
    const floating =
      (ts.isExpressionStatement(node) &&
        !ts.isVoidExpression(node.expression) &&
        !ts.isAwaitExpression(node.expression) &&
        !isAssignment(node.expression) &&
        isPromise(checker.getTypeAtLocation(node.expression))) ||
      returnedFromTry(node) ||
      promisesUngathered(node) ||
      expectsThrowOfPromise(node) ||
      asyncWhereNothingExpected(node) ||
      rejectsOfSettled(node) ||
      (ts.isExpression(node) && !ts.isVoidExpression(node) && ignoredArrowBody(node) && isPromise(checker.getTypeAtLocation(node)));
    if (floating) {
      const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
      found.push(`${path.relative(process.cwd(), file.fileName)}:${line + 1}:${character + 1}: ${node.getText(file).split('\n')[0].slice(0, 100)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}
for (const line of found) console.log(line);
if (found.length > 0) {
  console.error(`${found.length} promise(s) not awaited, returned or voided`);
  process.exitCode = 1;
}
