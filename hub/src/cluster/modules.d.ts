// aedes-persistence-redis ships no types; the hub only hands the instance to aedes.
declare module 'aedes-persistence-redis' {
  const create: (options: Record<string, unknown>) => unknown;
  export default create;
}
