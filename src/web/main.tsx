import { render } from 'preact';
import { App } from './App.js';
import { Api, takeTokenFromAddress } from './api/client.js';
// Regular and Medium, the two weights the styles use (a heavier weight would be synthesised from Medium).
import '@fontsource/noto-sans-sc/400.css';
import '@fontsource/noto-sans-sc/500.css';
import './styles.css';

const api = new Api(takeTokenFromAddress());
render(<App api={api} />, document.getElementById('app')!);
