/** `items.map(work)` for asynchronous work, one item at a time and in order: store calls share one connection, so never two at once. */
export async function mapInOrder<T, R>(items: Iterable<T>, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await work(item));
  return results;
}
