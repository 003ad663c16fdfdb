/**
 * Server-side rendering of the pages: Preact components rendered to a string
 * by preact-render-to-string, which escapes every text and attribute value
 * by default (markup from a scanned profile renders as text). No page uses
 * dangerouslySetInnerHTML.
 */
import type { FastifyReply } from 'fastify';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

export function renderPage(node: VNode): string {
  return `<!doctype html>\n${renderToString(node)}`;
}

export function sendPage(reply: FastifyReply, node: VNode, status = 200): FastifyReply {
  return reply.status(status).type('text/html; charset=utf-8').send(renderPage(node));
}
