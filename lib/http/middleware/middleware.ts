/**
 * The shape of every middleware of the stack: middy's, whose event is the request's state
 * (lib/http/request-state.ts), made once from API Gateway's event when the function is invoked,
 * so that every middleware reads the same request and nothing converts it twice.
 */
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { RequestState } from '../request-state.ts';
import type { HttpResponse } from '../responses.ts';

export type HttpMiddleware = middy.MiddlewareObj<RequestState, HttpResponse, Error, Context>;

export type HttpMiddyRequest = middy.Request<RequestState, HttpResponse, Error, Context>;
