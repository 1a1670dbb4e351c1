'use strict';
// The deploy-time environment, as settings.cjs checks it and iam.cjs turns it into resources:
// a setting's value, and the form of an ARN in it.

/** A setting as given to `serverless package` or `deploy`, trimmed ('' when unset). */
const setting = (name) => (process.env[name] ?? '').trim();

const ARN = /^arn:aws[a-z-]*:([a-z0-9-]+):([a-z0-9-]*):(\d{12}|):(.+)$/;

module.exports = { setting, ARN };
