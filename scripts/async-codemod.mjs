#!/usr/bin/env node
// One-off tool of the async-store branch (delete before merge): makes callers of the now-asynchronous store
// await it, to a fixpoint. Each round: every call of a function that became asynchronous (the store's
// Statement/Connection methods, and every function an earlier round made async) that is not already awaited
// or returned is wrapped in `(await …)`; the function around it becomes `async` and its declared return type
// `Promise<…>`. What it cannot do (getters, constructors, module scope, callbacks of forEach/map/filter) is
// listed for a person. Usage: node scripts/async-codemod.mjs [rounds]
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const rounds = Number(process.argv[2] ?? 20);
const configPath = path.resolve('tsconfig.json');
const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, path.dirname(configPath));
const STATE = process.env.CODEMOD_STATE ?? path.resolve('.async-codemod.json');
// Functions asynchronous from the start (by file and name): their calls are not touched.
const NEW_ASYNC_FILES = ['src/store/connection.ts', 'src/store/sqlite-connection.ts', 'src/store/postgres/pg-connection.ts'];
const NEW_ASYNC_NAMES = new Set(['get', 'all', 'run', 'write', 'read', 'now']);

function keyOf(declaration) {
  const file = path.relative(process.cwd(), declaration.getSourceFile().fileName);
  const name = declaration.name && ts.isIdentifier(declaration.name) ? declaration.name.text : '';
  const owner = declaration.parent && (ts.isClassLike(declaration.parent) || ts.isInterfaceDeclaration(declaration.parent)) && declaration.parent.name ? declaration.parent.name.text + '.' : '';
  return `${file}:${owner}${name}`;
}

function ours(file) {
  return !file.isDeclarationFile && !file.fileName.includes('/node_modules/') && (file.fileName.includes('/src/') || file.fileName.includes('/test/'));
}

function isPromise(checker, type) {
  if (type.isUnion()) return type.types.some((member) => isPromise(checker, member));
  return (type.getSymbol() ?? type.aliasSymbol)?.getName() === 'Promise';
}

function functionOf(node) {
  for (let at = node.parent; at; at = at.parent) {
    if (ts.isFunctionDeclaration(at) || ts.isMethodDeclaration(at) || ts.isArrowFunction(at) || ts.isFunctionExpression(at) || ts.isGetAccessor(at) || ts.isConstructorDeclaration(at)) return at;
    if (ts.isSourceFile(at)) return undefined;
  }
  return undefined;
}

function isAsync(fn) {
  return (ts.getCombinedModifierFlags(fn) & ts.ModifierFlags.Async) !== 0;
}

// The declaration a function-valued callee names: a function or method, or a variable holding an arrow/function expression.
function declarationOf(checker, call) {
  let symbol = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol?.valueDeclaration ?? symbol?.declarations?.[0];
}

let state = fs.existsSync(STATE) ? JSON.parse(fs.readFileSync(STATE, 'utf8')) : undefined;
const manual = new Set();
for (let round = 1; round <= rounds; round += 1) {
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const checker = program.getTypeChecker();
  if (state === undefined) {
    // The functions that already returned a promise before the store changed: left alone.
    const before = [];
    for (const file of program.getSourceFiles()) {
      if (!ours(file) || NEW_ASYNC_FILES.some((name) => file.fileName.endsWith(name))) continue;
      const visit = (node) => {
        if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodSignature(node)) && node.name !== undefined) {
          const signature = checker.getSignatureFromDeclaration(node);
          if (signature && isPromise(checker, checker.getReturnTypeOfSignature(signature))) before.push(keyOf(node));
        }
        if (ts.isVariableDeclaration(node) && node.initializer && (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))) {
          const signature = checker.getSignatureFromDeclaration(node.initializer);
          if (signature && isPromise(checker, checker.getReturnTypeOfSignature(signature))) before.push(keyOf(node));
        }
        ts.forEachChild(node, visit);
      };
      visit(file);
    }
    state = { before };
    fs.writeFileSync(STATE, JSON.stringify(state));
    console.log(`baseline: ${before.length} functions already asynchronous`);
    if (process.env.BASELINE_ONLY) process.exit(0);
  }
  const before = new Set(state.before);
  const edits = new Map(); // file -> [{at, text}]
  const add = (file, at, text) => {
    if (!edits.has(file)) edits.set(file, []);
    edits.get(file).push({ at, text });
  };
  const madeAsync = new Set();
  let awaits = 0;
  for (const file of program.getSourceFiles()) {
    if (!ours(file)) continue;
    const wraps = [];
    const asyncOnly = [];
    const visit = (node) => {
      if (ts.isCallExpression(node) && isPromise(checker, checker.getTypeAtLocation(node))) {
        const declaration = declarationOf(checker, node);
        if (declaration && ours(declaration.getSourceFile())) {
          const key = keyOf(declaration);
          const isNew = NEW_ASYNC_FILES.some((name) => declaration.getSourceFile().fileName.endsWith(name)) ? NEW_ASYNC_NAMES.has(key.split(/[:.]/).pop()) : !before.has(key);
          let parent = node.parent;
          while (ts.isParenthesizedExpression(parent)) parent = parent.parent;
          const settled =
            ts.isAwaitExpression(parent) || ts.isReturnStatement(parent) || ts.isVoidExpression(parent) || (ts.isArrowFunction(parent) && parent.body !== undefined && !ts.isBlock(parent.body));
          if (isNew && !settled) wraps.push(node);
          // Returned from a function declared to give something else: that function becomes async.
          if (isNew && settled && !ts.isAwaitExpression(parent) && !ts.isVoidExpression(parent)) asyncOnly.push({ fn: functionOf(node), always: false });
          // The work of a write or read: always an async function.
        }
        if (declaration && ['write', 'read', 'writeTransaction', 'readTransaction'].includes(keyOf(declaration).split(/[:.]/).pop())) {
          for (const work of node.arguments) {
            if ((ts.isArrowFunction(work) || ts.isFunctionExpression(work)) && !isAsync(work)) asyncOnly.push({ fn: work, always: true });
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
    const makeAsync = (fn) => {
      if (isAsync(fn) || madeAsync.has(fn)) return;
      madeAsync.add(fn);
      const start = ts.isArrowFunction(fn) ? fn.getStart(file) : ts.isMethodDeclaration(fn) ? fn.name.getStart(file) : fn.getStart(file);
      const at =
        ts.isFunctionDeclaration(fn) || ts.isFunctionExpression(fn)
          ? fn
              .getChildren(file)
              .find((child) => child.kind === ts.SyntaxKind.FunctionKeyword)
              .getStart(file)
          : start;
      add(file.fileName, at, 'async ');
      if (fn.type && !/^Promise</.test(fn.type.getText(file))) {
        add(file.fileName, fn.type.getStart(file), 'Promise<');
        add(file.fileName, fn.type.end, '>');
      }
    };
    for (const { fn, always } of asyncOnly) {
      if (fn === undefined || ts.isGetAccessor(fn) || ts.isConstructorDeclaration(fn) || isAsync(fn) || madeAsync.has(fn)) continue;
      // a function whose declared return type is not a promise, or a write's or read's work
      if (always || (fn.type && !/^Promise</.test(fn.type.getText(file)))) {
        makeAsync(fn);
        awaits += 1;
      }
    }
    // Outermost only: an inner call is wrapped in the next round.
    const outer = wraps.filter((node) => !wraps.some((other) => other !== node && other.getStart(file) <= node.getStart(file) && node.end <= other.end));
    for (const node of outer) {
      const fn = functionOf(node);
      const where = `${path.relative(process.cwd(), file.fileName)}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
      if (fn === undefined || ts.isGetAccessor(fn) || ts.isConstructorDeclaration(fn)) {
        manual.add(`${where}: a call in ${fn ? 'a getter/constructor' : 'module scope'}: ${node.getText(file).slice(0, 80)}`);
        continue;
      }
      add(file.fileName, node.getStart(file), '(await ');
      add(file.fileName, node.end, ')');
      awaits += 1;
      if (!isAsync(fn) && !madeAsync.has(fn)) {
        makeAsync(fn);
        if (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) {
          let call = fn.parent;
          while (ts.isParenthesizedExpression(call)) call = call.parent;
          if (
            ts.isCallExpression(call) &&
            ts.isPropertyAccessExpression(call.expression) &&
            ['forEach', 'map', 'filter', 'some', 'every', 'find', 'reduce', 'flatMap', 'sort', 'findIndex'].includes(call.expression.name.text)
          ) {
            manual.add(`${where}: an async callback of .${call.expression.name.text}(): make it a loop`);
          }
        }
      }
    }
  }
  console.log(`round ${round}: ${awaits} awaits, ${madeAsync.size} functions made async`);
  if (awaits === 0) break;
  for (const [fileName, list] of edits) {
    let text = fs.readFileSync(fileName, 'utf8');
    list.sort((a, b) => b.at - a.at);
    for (const { at, text: insert } of list) text = text.slice(0, at) + insert + text.slice(at);
    fs.writeFileSync(fileName, text);
  }
}
for (const line of manual) console.log('MANUAL ' + line);
