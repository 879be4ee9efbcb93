import { render } from 'preact';
import { App } from './App.js';
import { Api, takeTokenFromAddress } from './api/client.js';
import './styles.css';

const api = new Api(takeTokenFromAddress());
render(<App api={api} />, document.getElementById('app')!);
