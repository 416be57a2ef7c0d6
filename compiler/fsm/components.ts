// Strongly connected components of the rule reference graph, for analyses that go bottom-up
// over callees (rule hashes, FIRST sets): linear, where a fixpoint over all rules takes a pass
// per level of a long chain.
/** Strongly connected components of a graph given as out-edge lists, each component after
 * every component it reaches (Tarjan's algorithm, without recursion), members ascending. */
export function components(refs: number[][]): number[][] {
  const n = refs.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const out: number[][] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const work: [number, number][] = [[root, 0]];
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const [v, k] = top;
      if (k < refs[v]!.length) {
        top[1]++;
        const w = refs[v]![k]!;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          work.push([w, 0]);
        } else if (onStack[w] === 1) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]![0];
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] === index[v]) {
        const component: number[] = [];
        for (;;) {
          const w = stack.pop()!;
          onStack[w] = 0;
          component.push(w);
          if (w === v) break;
        }
        out.push(component.sort((a, b) => a - b));
      }
    }
  }
  return out;
}
