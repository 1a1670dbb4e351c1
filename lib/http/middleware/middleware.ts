/**
 * The shape of every middleware of the stack: middy's, whose event is the request's state
 * (lib/http/request-state.ts), made once from API Gateway's event when the function is invoked,
 * so that every middleware reads the same request and nothing converts it twice. What a
 * middleware keeps of one request for itself goes in middy's `request.internal`, under a name
 * only it uses.
 */
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { RequestState } from '../request-state.ts';
import type { HttpResponse } from '../responses.ts';

export type HttpMiddleware = middy.MiddlewareObj<RequestState, HttpResponse, Error, Context>;

export type HttpMiddyRequest<Internal extends Record<string, unknown> = Record<string, unknown>> =
  middy.Request<RequestState, HttpResponse, Error, Context, Internal>;
