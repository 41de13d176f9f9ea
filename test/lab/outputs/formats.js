'use strict';

// The one format docs/summary.schema.json uses, for Ajv (which leaves formats to a plugin):
// an ISO 8601 date-time, as Date#toISOString writes it.
module.exports = (ajv) =>
  ajv.addFormat(
    'date-time',
    (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  );
