"""The Streamlit dashboard (run with `streamlit run app/server.py`)."""
