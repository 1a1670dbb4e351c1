/**
 * Global setup of the AWS tier: moto's server (`moto_server`, a maintained emulator of the AWS
 * APIs: Secrets Manager, SQS, DynamoDB, EventBridge, ...) on a free loopback port
 * (scripts/rehearse/stand-in-aws.ts, which `npm run rehearse` starts it with too), stopped at the
 * end. Tests read its URL with `inject('motoEndpoint')`.
 */
import type { TestProject } from 'vitest/node';
import { startMoto } from '../../scripts/rehearse/stand-in-aws.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    motoEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const moto = await startMoto();
  project.provide('motoEndpoint', moto.endpoint);
  return () => moto.stop();
}
