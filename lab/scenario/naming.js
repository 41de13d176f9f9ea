'use strict';

// A request's name in every table and threshold: its `name:`, else its method and its URL as
// written, templates unexpanded (GET /api/cart/{{ cartId }}), so that one step is one row
// whatever the values it was sent with.
const requestName = ({ name, method, url }) => (name ? String(name) : `${method} ${url}`);

module.exports = { requestName };
