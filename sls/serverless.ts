/**
 * What the deploy's code uses of the Serverless Framework (osls): a plugin's arguments, the
 * service as serverless.yml resolves it, the packaged template, and a variable resolver's
 * argument. osls ships no types: these name only what sls/ reads and writes.
 */
import type { Server } from '@hapi/hapi';

/** A resource of the CloudFormation template. */
export interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string | string[];
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

/** The template's resources, by logical id. */
export type Resources = Record<string, Resource>;

interface Template {
  Resources: Resources;
  Outputs?: Record<string, unknown>;
}

/** A value of a resource, read without trusting its shape: `at(resource, 'Properties', 'X')`. */
export function at(value: unknown, ...keys: readonly string[]): unknown {
  let found = value;
  for (const key of keys) {
    if (found === null || typeof found !== 'object') return undefined;
    found = (found as Record<string, unknown>)[key];
  }
  return found;
}

/**
 * serverless.yml's `custom`, as far as the plugins read it. A value from a stage parameter is
 * whatever YAML made of it (text, a number, a boolean): each plugin checks its own.
 */
export interface Custom {
  readonly isLocal?: unknown;
  readonly alarmActions?: readonly string[];
  readonly redrivePrincipalArn?: unknown;
  readonly corsAllowedOrigins?: unknown;
  readonly dataRetention?: {
    readonly disposable?: unknown;
    readonly deletionPolicy?: unknown;
    readonly pointInTimeRecovery?: unknown;
  };
  readonly managedInstances?: {
    readonly capacityProviderArn?: unknown;
    readonly perEnvironmentMaxConcurrency?: unknown;
  };
  readonly reservedConcurrency?: { readonly reserve?: unknown };
  readonly publicThrottles?: {
    readonly webhook?: { readonly rate?: unknown; readonly burst?: unknown };
    readonly public?: { readonly rate?: unknown; readonly burst?: unknown };
  };
}

/** provider.httpApi.cors: false, true (the framework's defaults), or a configuration. */
export type CorsSetting = boolean | undefined | CorsConfig;

export interface CorsConfig {
  readonly allowedOrigins?: readonly string[];
  readonly allowedHeaders?: readonly string[];
  readonly allowedMethods?: readonly string[];
  readonly exposedResponseHeaders?: readonly string[];
  readonly allowCredentials?: boolean;
  readonly maxAge?: number;
}

/** An HTTP API authorizer of provider.httpApi.authorizers. */
export interface Authorizer {
  readonly type: string;
  readonly identitySource?: string;
  readonly issuerUrl?: string;
  readonly audience?: string | readonly string[];
}

/** provider of serverless.yml; the framework fills in no region or stage of its own here. */
export interface Provider {
  readonly name: string;
  readonly stage?: string;
  readonly region?: string;
  readonly layers?: readonly unknown[];
  readonly environment?: Readonly<Record<string, unknown>>;
  readonly httpApi?: {
    readonly cors?: CorsSetting;
    readonly authorizers?: Readonly<Record<string, Authorizer>>;
  };
  readonly compiledCloudFormationTemplate: Template;
}

export interface Service {
  readonly service: string;
  readonly custom?: Custom;
  readonly provider: Provider;
  readonly functions?: Readonly<
    Record<string, { readonly environment?: Readonly<Record<string, unknown>> }>
  >;
}

/** Another plugin of the service; serverless offline's gives its HTTP server (hapi). */
interface LoadedPlugin {
  readonly constructor: { readonly name: string };
  readonly internals?: () => { getApiGatewayServer(): Server | undefined };
}

/** The framework's object, which it hands each plugin. */
export interface Serverless {
  readonly service: Service;
  readonly processedInput?: { readonly commands?: readonly string[] };
  readonly classes: { readonly Error: new (message: string) => Error };
  readonly pluginManager: { readonly plugins: readonly LoadedPlugin[] };
  readonly configSchemaHandler: {
    defineFunctionProperties(provider: string, schema: object): void;
  };
  getProvider(name: 'aws'): { getStage(): string; getRegion(): string };
  addServiceOutputSection(section: string, content: readonly string[]): void;
}

/** The CLI's options (`--stage`, `--region`, ...), as the framework hands them to a plugin. */
export interface Options {
  readonly stage?: string;
  readonly region?: string;
}

/** The framework's logging, the plugin's third argument: `log(text)`, `log.warning(text)`, ... */
export interface Logging {
  readonly log?: ((message: string) => void) & {
    warning?(message: string): void;
    verbose?(message: string): void;
  };
}

/** A plugin: what it runs at each step of the framework's lifecycle. */
export interface Plugin {
  readonly hooks: Readonly<Record<string, () => unknown>>;
}

/** serverless offline's HTTP server (hapi), or undefined when it is not running. */
export function offlineServer(serverless: Serverless): Server | undefined {
  const offline = serverless.pluginManager.plugins.find(
    (plugin) => plugin.constructor.name === 'ServerlessOffline',
  );
  return offline?.internals?.().getApiGatewayServer();
}

/** Reads a variable of serverless.yml: `param:corsAllowedOrigins`, `self:custom.isLocal`, ... */
export type ResolveVariable = (address: string) => Promise<unknown>;

/** What the framework hands a function that `${file(...)}` reaches (sls/variables.ts). */
export interface ResolverArgs {
  readonly resolveVariable: ResolveVariable;
}
