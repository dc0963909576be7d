"""Tools for developers: starting the app for the tests and benches, and the screenshots."""
