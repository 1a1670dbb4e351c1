// The deploy-time environment, as settings.ts checks it and iam.ts turns it into resources:
// a setting's value, and the form of an ARN in it.

/** A setting as given to `serverless package` or `deploy`, trimmed ('' when unset). */
export const setting = (name: string): string => (process.env[name] ?? '').trim();

export const ARN = /^arn:aws[a-z-]*:([a-z0-9-]+):([a-z0-9-]*):(\d{12}|):(.+)$/;
