import base from './vitest.config.ts';
const projects = (base.test!.projects as any[]).map((p) => ({ ...p, test: { ...p.test, setupFiles: [...(p.test.setupFiles ?? []), '/tmp/perfm/prof-setup.ts'] } }));
export default { ...base, test: { ...base.test, projects } };
