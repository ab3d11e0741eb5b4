"""An IT helpdesk on Turnframe: one ``ticket`` workflow (see README.md)."""
