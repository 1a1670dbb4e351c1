// undici's Agent, imported from its own module (see undici.ts); typed through the package root.
declare module 'undici/lib/dispatcher/agent.js' {
  const Agent: unknown;
  export default Agent;
}
